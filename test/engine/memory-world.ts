/** One in-memory "world" (store, logs, requests, executor) shared by engine "processes": no disk, no processes. */
import { MemoryExecutor, type Outcome } from '../../src/adapters/launcher/memory-executor.js';
import { MemoryLogStore } from '../../src/adapters/logstore/memory-log-store.js';
import { MemoryRequests } from '../../src/adapters/store/memory/requests.js';
import { MemoryRunStore } from '../../src/adapters/store/memory/run-store.js';
import { MemoryOwners } from '../../src/adapters/store/memory/ownership.js';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import type { DagRunResource } from '../../src/core/resources.js';
import { parseDagText } from '../../src/core/spec/load.js';
import type { EngineDeps } from '../../src/engine/deps.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { hitlLauncher } from '../../src/runtime/hitl.js';

export const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface Shared {
  store: MemoryRunStore; logs: MemoryLogStore; requests: MemoryRequests; executor: MemoryExecutor; ids: number; owners: MemoryOwners;
}

/** `script` answers the steps' executions, `probe` the engine's probes (MemoryExecutor). */
export function world(script?: (req: ExecRequest) => Outcome, probe?: (req: ExecRequest) => Outcome): Shared {
  const requests: MemoryRequests = new MemoryRequests(async (k) => (await store.get(k)) !== undefined);
  const store = new MemoryRunStore(undefined, (k) => requests.notify(k));
  return { store, logs: new MemoryLogStore(), requests, executor: new MemoryExecutor(script, probe), ids: 0, owners: new MemoryOwners() };
}

/** The ports of one engine "process" over shared state; `pid` tells drivers apart (a crashed one is dead). */
export function memoryDeps(shared: Shared, pid: number, log: EngineDeps['log'] = quiet, secrets?: EngineDeps['secrets']): EngineDeps {
  return {
    store: shared.store, logs: shared.logs,
    launchers: { shell: shared.executor, hitl: hitlLauncher }, controls: shared.requests, events: shared.requests,
    secrets: secrets ?? { resolve: async () => { throw new Error('no secrets here'); } },
    dags: { find: async () => undefined },
    clock: { now: () => Date.now() }, ids: { next: () => `id${(shared.ids++).toString().padStart(6, '0')}` }, log,
    systemEnv: { PATH: '/usr/bin:/bin' }, cwd: '/nonexistent', defaultShell: ['/bin/sh'], statusIntervalMs: 0, resyncMs: 3_600_000,
    ownership: shared.owners.as(`engine-${pid}`),
  };
}

export const engine = (shared: Shared, pid: number, log: EngineDeps['log'] = quiet): RunService => new RunService(memoryDeps(shared, pid, log));

export async function create(runs: RunService, yaml: string): Promise<DagRunResource> {
  const { definition, localDags, errors } = parseDagText(yaml, 'mem');
  if (errors.length > 0) throw new Error(errors.join('; '));
  return runs.create({ definition, localDags, errors });
}

export const keyOf = (r: DagRunResource) => ({ dagName: r.spec.dagName, dagRunId: r.spec.dagRunId });
export const statuses = (r: DagRunResource) => r.status.run.nodes.map((n) => n.status);

export async function until(store: MemoryRunStore, r: DagRunResource, ok: (run: DagRunResource) => boolean): Promise<DagRunResource> {
  for (const end = Date.now() + 5000; Date.now() < end;) {
    const now = await store.get(keyOf(r));
    if (now && ok(now)) return now;
    await new Promise((res) => setTimeout(res, 5));
  }
  throw new Error('the run did not reach the state in 5 s');
}
