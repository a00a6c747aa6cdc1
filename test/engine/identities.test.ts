/**
 * Identities, not paths: what the embedded backend stores of a run names no local path, pid or host
 * (logs are found by identity through the LogStore, the owner lives beside the run), and its object
 * name is a valid Kubernetes name.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { isDnsLabel } from '../../src/core/naming.js';
import { RunStatus } from '../../src/core/run/status.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { embeddedDeps, loadDagFile } from '../../src/main/embedded.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

test('a finished run\'s stored spec and status hold no data path, pid or host; its name is a DNS label', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ident-'));
  const dataDir = join(dir, 'data');
  writeFileSync(join(dir, 'ident.yaml'), 'steps:\n  - name: a\n    command: echo hi\n  - name: b\n    command: echo there\n');
  const runs = new RunService(embeddedDeps(loadConfig({ PATH: process.env.PATH, HOME: dir, SVC_DATA_DIR: dataDir, SVC_DAGS_DIR: dir }), quiet));
  const run = await runs.create(await loadDagFile(join(dir, 'ident.yaml')), { dagRunId: 'Run_1' });
  const done = await runs.drive({ dagName: 'ident', dagRunId: 'Run_1' });
  expect(done.status.run.status).toBe(RunStatus.Succeeded);
  expect(isDnsLabel(run.metadata.name)).toBe(true);
  const runDir = join(dataDir, 'runs', 'ident', 'Run_1');
  const status = readFileSync(join(runDir, 'status.json'), 'utf8');
  expect(status).not.toContain(dataDir);
  expect(status).not.toContain(hostname());
  expect(status).not.toMatch(/"(pid|host|driver|log)"/);
  const parsed = JSON.parse(status) as { status: Record<string, unknown> };
  expect(Object.keys(parsed.status).sort()).toEqual(['attemptId', 'queuedAt', 'run']);
  // The spec names the DAG file it came from (SPEC 2.2 workingDir is relative to it), nothing of the data dir.
  expect(readFileSync(join(runDir, 'spec.json'), 'utf8')).not.toContain(dataDir);
  // The owner was released with the run's end.
  expect(readdirSync(runDir)).not.toContain('owner');
});
