/**
 * A container DAG run through the real embedded engine, started in the background so a test can act on
 * it while it runs (stop it, look at its container): for the container tests.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { execLog } from '../../src/core/ports/log-store.js';
import type { DagRunResource } from '../../src/core/resources.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { embeddedDeps, loadDagFile } from '../../src/main/embedded.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface LiveRun {
  key: { dagName: string; dagRunId: string };
  runs: RunService;
  done: Promise<DagRunResource>;
  dir: string;
  /** A step's log as it is now ('' when there is none yet). */
  log(step: string, stream?: 'stdout' | 'stderr'): Promise<string>;
}

export async function startRun(yaml: string, env: Record<string, string>): Promise<LiveRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-container-'));
  writeFileSync(join(dir, 'live.yaml'), yaml);
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME ?? dir, SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dir, ...env });
  const deps = embeddedDeps(config, quiet);
  const runs = new RunService(deps);
  const loaded = await loadDagFile(join(dir, 'live.yaml'));
  if (loaded.errors.length > 0) throw new Error(`DAG does not load: ${loaded.errors.join('; ')}`);
  const created = await runs.create(loaded);
  const key = { dagName: created.spec.dagName, dagRunId: created.spec.dagRunId };
  const done = runs.drive(key);
  return {
    key, runs, done, dir,
    log: async (step, stream = 'stdout') => (await deps.logs.text(execLog({ ...key, attemptId: created.status.attemptId, node: step, attempt: 0 }, stream, false), 1 << 20)) ?? '',
  };
}
