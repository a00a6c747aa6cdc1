/** `svc runs` (a DAG's history) and `svc logs` (the run log, a step's stdout or stderr) (issue 20). */
import { Sandbox } from '../helpers/cli.js';

const sb = new Sandbox();
beforeAll(async () => {
  sb.dag('talk', 'steps:\n  - name: say\n    command: sh -c \'echo one; echo two; echo oops >&2\'\n');
  for (const id of ['r1', 'r2']) expect((await sb.run(['start', 'talk', '--run-id', id])).code).toBe(0);
});

test('svc runs lists the runs newest first; --json and --limit', async () => {
  const r = await sb.run(['runs', 'talk']);
  expect(r.code).toBe(0);
  expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['r2 succeeded', 'r1 succeeded']);
  const json = JSON.parse((await sb.run(['runs', 'talk', '--json', '--limit', '1'])).stdout);
  expect(json.dagRuns.map((x: { dagRunId: string }) => x.dagRunId)).toEqual(['r2']);
  expect((await sb.run(['runs', 'talk', '--limit', '0'])).stderr).toContain('--limit: "0" must be a whole number from 1 to 10000');
});

test('svc logs: a step\'s stdout, its stderr, the last lines, the run log', async () => {
  expect((await sb.run(['logs', 'talk', '--step', 'say'])).stdout).toBe('one\ntwo\n');
  expect((await sb.run(['logs', 'talk', '--step', 'say', '--stderr', '--run-id', 'r1'])).stdout).toBe('oops\n');
  expect((await sb.run(['logs', 'talk', '--step', 'say', '--tail', '1'])).stdout).toBe('two\n');
  const runLog = await sb.run(['logs', 'talk']);
  expect([runLog.code, runLog.stdout.length > 0]).toEqual([0, true]);
  const missing = await sb.run(['logs', 'talk', '--step', 'nope']);
  expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('step "nope" not found in dag-run r2 of DAG talk')]);
});

test('svc list: every DAG of the DAGs directory with its latest run; invalid ones say why', async () => {
  sb.dag('quiet', 'steps:\n  - name: s\n    command: "true"\n');
  sb.dag('broken', 'steps:\n  - name: s\n    depends: [nowhere]\n    command: "true"\n');
  const r = await sb.run(['list']);
  expect(r.code).toBe(0);
  const line = (f: string) => r.stdout.split('\n').find((l) => l.startsWith(`${f} `)) ?? '';
  expect(line('talk')).toMatch(/^talk\s+succeeded \d{4}-/);
  expect(line('quiet')).toMatch(/^quiet\s+never run$/);
  expect(line('broken')).toMatch(/^broken\s+invalid: .*nowhere/);
  const json = JSON.parse((await sb.run(['list', '--json'])).stdout);
  expect(json.dags.find((d: { fileName: string }) => d.fileName === 'talk').latest.dagRunId).toBe('r2');
});
