/**
 * Wiring of the kubernetes backend of the API server (`svc server --backend kubernetes`): Dag and DagRun
 * resources, auth and webhook records in Secrets, logs in an S3-compatible bucket (SVC_S3_BUCKET) or
 * files on a volume every replica mounts (SVC_DATA_DIR). Stateless: any number of replicas. This process
 * runs no steps and drives no runs: the runs it creates wait for the operator.
 */
import { statusFloorProblem } from '../core/run/status-floor.js';
import { DEFAULT_MAX_STATUS_BYTES } from '../adapters/kube/run-mapping.js';
import { join, resolve } from 'node:path';
import { apiProblem, defaultNamespace, loadKubeConfig, Secrets } from '../adapters/kube/client.js';
import { DomainError } from '../core/errors.js';
import { KubeDagStore } from '../adapters/kube/dag-store.js';
import { KubeNodes } from '../adapters/kube/nodes.js';
import { KubeRunControls } from '../adapters/kube/run-controls.js';
import { KubeAdmissionLock } from '../adapters/kube/admission-lease.js';
import { KubeRunStore } from '../adapters/kube/run-store.js';
import { SecretRecords } from '../adapters/kube/secret-records.js';
import { FsLogStore } from '../adapters/logstore/fs-log-store.js';
import { isStoredApiKey, isStoredUser, isStoredWebhook } from '../adapters/records/shapes.js';
import type { Config } from '../config/config.js';
import type { DagSource, EngineLogger } from '../core/ports/engine-ports.js';
import type { DagStore } from '../core/ports/dag-store.js';
import { dagRunName } from '../core/naming.js';
import { parseDagText } from '../core/spec/load.js';
import { isValidFileName } from '../core/spec/names.js';
import type { LogStore } from '../core/ports/log-store.js';
import type { Ownership } from '../core/ports/ownership.js';
import type { RunEvents } from '../core/ports/run-events.js';
import type { EngineDeps } from '../engine/deps.js';
import { BuiltinSecretProvider } from '../runtime/secrets/providers.js';
import type { Backend } from './backend.js';
import { timeIds } from './embedded.js';
import { s3Logs } from './s3-logs.js';

/** No driver runs here: nothing to wake, nothing owned. */
const noEvents: RunEvents = { watch: () => () => undefined };
const notOwned: Ownership = { acquire: async () => false, release: async () => undefined, state: async () => 'none', holder: async () => undefined };

/** The filesystem log store of the kubernetes backend: SVC_DATA_DIR/runs/<DagRun name>/ on a shared volume. */
export function kubeFsLogs(config: Pick<Config, 'dataDir'>): FsLogStore {
  const root = join(resolve(config.dataDir), 'runs');
  return new FsLogStore(root, (k) => join(root, dagRunName(k.dagName, k.dagRunId)));
}

function logStore(config: Config, log: EngineLogger): { logs: LogStore; close(): Promise<void> } {
  return s3Logs(config, log) ?? { logs: kubeFsLogs(config), close: async () => undefined };
}

export async function kubernetesBackend(config: Config, log: EngineLogger, hooks: Pick<EngineDeps, 'onChange'> = {}): Promise<Backend> {
  const kc = loadKubeConfig(config.kubeconfig);
  const namespace = defaultNamespace(kc, config.namespace);
  // Fail at start with the reason rather than answer every request with it.
  const problem = await apiProblem(kc, namespace);
  if (problem) throw new DomainError('service_unavailable', `cannot serve namespace ${namespace}: ${problem}`);
  const store = new KubeRunStore(kc, namespace, { cache: true });
  // Runs change in other processes (the operator drives them): what the watch shows reaches the API's
  // listeners (start-sync's wait, history caches, metrics) as this process's own writes do.
  const unsubscribe = store.subscribe((c) => { if (c.type === 'add' || c.type === 'update') hooks.onChange?.(c.run); });
  const dags = new KubeDagStore(kc, namespace, { cache: true });
  const secrets = new Secrets(kc, namespace);
  const { logs, close } = logStore(config, log);
  const clock = { now: () => Date.now() };
  const engine: EngineDeps = {
    store, logs, launchers: {}, events: noEvents, ownership: notOwned, controls: new KubeRunControls(kc, namespace),
    admission: new KubeAdmissionLock(kc, store, { namespace, onError: (e) => log.warn('Could not free the run admission Lease', { error: String(e) }) }),
    secrets: new BuiltinSecretProvider(), dags: dagSource(dags),
    clock, ids: timeIds(clock.now), log, systemEnv: config.systemEnv, cwd: '/', defaultShell: config.defaultShell, ...hooks,
  };
  const nodes = new KubeNodes(kc, namespace);
  return {
    name: 'kubernetes', engine, dags, namespace, drives: false,
    dagLimits: (def) => statusFloorProblem(def, DEFAULT_MAX_STATUS_BYTES),
    workers: async () => (await nodes.list()).map((n) => ({
      id: n.name, labels: n.labels, ...(n.heartbeatAt ? { heartbeatAt: n.heartbeatAt } : {}),
      running: n.steps.map((s) => ({ dagName: s.identity.dagName, dagRunId: s.identity.dagRunId, startedAt: s.startedAt })),
    })),
    records: {
      users: new SecretRecords(secrets, 'svc-users', isStoredUser),
      apiKeys: new SecretRecords(secrets, 'svc-api-keys', isStoredApiKey),
      webhooks: new SecretRecords(secrets, 'svc-webhooks', isStoredWebhook),
    },
    problem: () => apiProblem(kc, namespace),
    async close() {
      unsubscribe();
      // Every part closes even when another fails (an S3 flush that cannot reach the bucket).
      const results = await Promise.allSettled([close(), store.close(), dags.close()]);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/** Sub-DAGs by name are the namespace's Dags. */
export function dagSource(store: DagStore): DagSource {
  return {
    async find(name) {
      if (!isValidFileName(name)) return undefined;
      const file = await store.read(name);
      if (!file) return undefined;
      const { definition, localDags, errors } = parseDagText(file.text, name);
      return { definition, localDags, errors };
    },
  };
}
