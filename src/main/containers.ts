/**
 * Wiring of container steps on the embedded backend (ADR 0017): the Docker Engine API launcher over the
 * local log store's layout, and the removal of a run's container once the run has ended (seen on the
 * run's saved changes, as the operator does for its run container Pods).
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { ContainerEngine } from '../adapters/launcher/docker/engine.js';
import { DockerLauncher } from '../adapters/launcher/docker/launcher.js';
import type { FsLogStore } from '../adapters/logstore/fs-log-store.js';
import type { Config } from '../config/config.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import type { DagRunResource } from '../core/resources.js';
import type { RunStore } from '../core/ports/run-store.js';
import { isRunTerminal } from '../core/run/status.js';

export interface EmbeddedContainers {
  launcher: DockerLauncher;
  /** Wraps the backend's change hook: a terminal run with a DAG-level image container has it removed. */
  onChange(next?: (run: DagRunResource) => void): (run: DagRunResource) => void;
}

export function embeddedContainers(config: Pick<Config, 'systemEnv' | 'dataDir'>, deps: { logs: FsLogStore; store: RunStore; log: EngineLogger }): EmbeddedContainers {
  const { logs, store, log } = deps;
  const launcher = new DockerLauncher({
    engine: new ContainerEngine(config.systemEnv), systemEnv: config.systemEnv,
    layout: (req) => logs.execFiles(req.identity, req.merged),
    owner: createHash('sha256').update(resolve(config.dataDir)).digest('hex').slice(0, 16),
    attemptOver: async (id) => {
      const run = await store.get({ dagName: id.dagName, dagRunId: id.dagRunId });
      return !run || run.status.attemptId !== id.attemptId || isRunTerminal(run.status.run.status);
    },
    onSweep: (removed, e) => {
      if (e) log.warn('Failed to remove containers left by a previous svc', { error: e.message });
      else if (removed.length > 0) log.info('Removed containers left by a previous svc', { containers: removed });
    },
  });
  /** Attempts whose container removal was asked for (a run's terminal state is saved more than once). */
  const ended = new Set<string>();
  const observe = (run: DagRunResource): void => {
    const box = run.spec.definition.container;
    if (!box?.image || !isRunTerminal(run.status.run.status)) return;
    const key = `${run.spec.dagName}\u0000${run.spec.dagRunId}\u0000${run.status.attemptId}`;
    if (ended.has(key)) return;
    if (ended.size > 10_000) ended.clear();
    ended.add(key);
    const id = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId, attemptId: run.status.attemptId };
    void launcher.endRun(id).catch((e: Error) => log.warn('Failed to remove a run\'s container', { dag: id.dagName, dagRunId: id.dagRunId, error: e.message }));
  };
  return {
    launcher,
    onChange: (next) => (run) => {
      observe(run);
      next?.(run);
    },
  };
}
