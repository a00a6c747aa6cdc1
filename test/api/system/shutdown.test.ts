/** Stopping the server does not wait for requests that could last a day (start-sync). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer, eventually } from '../../helpers/server.js';

const srv = new TestServer();

/** The step outlives the stopped server (as after any engine stop): end it so the test process can exit. */
afterAll(() => {
  const attempts = join(srv.dataDir, 'runs', 'slow', 's1', 'attempts');
  for (const a of readdirSync(attempts)) {
    for (const line of readFileSync(join(attempts, a, 'exec', 'records'), 'utf8').split('\n').filter((l) => l.startsWith('wait.0 {'))) {
      const { pid } = JSON.parse(line.replace(/^wait\.0 /, '')) as { pid: number };
      try { if (pid > 0) process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
    }
  }
});

test('close() cuts off a start-sync request still waiting, after a short grace', async () => {
  srv.dag('slow', 'steps:\n  - name: wait\n    command: sleep 30\n');
  await srv.start();
  const pending = srv.post('/dags/slow/start-sync', { timeout: 3600, dagRunId: 's1' }).then(() => 'answered', () => 'cut off');
  await eventually(async () => (await srv.get('/dag-runs/slow/s1')).body.dagRun?.statusLabel === 'running' || undefined, 'the run to be running');
  await srv.stop();
  expect(await pending).toBe('cut off');
}, 15000);
