/**
 * Where the logs, results and scheduler state of one namespace's runs live. A run's place is named from
 * its DAG name and run id (core/naming.ts), which two namespaces may share (a `nightly` DagRun of the Dag
 * `hello` in team-a and in team-b): an operator that drives runs of other namespaces than its own keeps
 * each such namespace's under `namespaces/<namespace>/` of the data directory or the bucket's prefix. Its
 * own namespace keeps the layout it always had, which the API server (serving that namespace) reads.
 */
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import { FsPodFiles } from '../adapters/launcher/pod/fs-files.js';
import type { PodFiles } from '../adapters/launcher/pod/pod-launcher.js';
import type { LogStore } from '../core/ports/log-store.js';
import { kubeFsLogs } from './kubernetes.js';
import { s3Logs } from './s3-logs.js';

/** Namespace names are DNS labels; checked again here because they become a path and a key prefix. */
const isNamespace = (s: string): boolean => s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);

export interface NamespaceLogs {
  logs: LogStore;
  /** Where step Pods write (files on the data directory, or upload grants for the bucket). */
  files: PodFiles;
  /** The files, when they are on the data directory (a DAG-level container needs them). */
  fsFiles?: FsPodFiles;
  /** The directory of the namespace's scheduler state. */
  dataDir: string;
  close(): Promise<void>;
}

export function namespaceLogs(config: Readonly<Config>, log: EngineLogger, namespace: string, home: string): NamespaceLogs {
  if (!isNamespace(namespace)) throw new Error(`"${namespace}" is not a namespace name`);
  const own = namespace === home;
  const dataDir = own ? config.dataDir : join(config.dataDir, 'namespaces', namespace);
  const prefix = config.systemEnv.SVC_S3_PREFIX ?? 'svc';
  const s3 = s3Logs(own ? config : { systemEnv: { ...config.systemEnv, SVC_S3_PREFIX: `${prefix.replace(/\/+$/, '')}/namespaces/${namespace}` } }, log);
  if (s3) return { logs: s3.logs, files: s3.podFiles(), dataDir, close: () => s3.close() };
  const fsFiles = new FsPodFiles(kubeFsLogs({ dataDir }));
  return { logs: kubeFsLogs({ dataDir }), files: fsFiles, fsFiles, dataDir, close: async () => undefined };
}
