/**
 * Attack: an operator (may start DAGs, may not edit them; a manager for inline specs) turns start params into code, or a start into
 * erasing another DAG's history. Params are data: names are identifiers and never a variable a shell, the
 * loader or an interpreter reads as code (docs/semantics.md "Parameter names"); runConfig locks params and
 * run ids on the server; a start's run name never belongs to another stored DAG.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD, bearer, builtinServer, login, userWithRole } from '../auth/harness.js';
import { Sandbox } from '../../helpers/cli.js';
import { eventually } from '../../helpers/wait.js';

const srv = builtinServer();
const scratch = mkdtempSync(join(tmpdir(), 'svc-params-attack-'));
const marker = join(scratch, 'pwned');
let op: Record<string, string>;
let manager: Record<string, string>;
let admin: Record<string, string>;

/** Inline specs need the manager role (they are code); starts of stored DAGs an operator's. */
const as = (who: Record<string, string>, path: string, b: unknown) => srv.req('POST', path, b, /^\/dag-runs(\/enqueue)?$/.test(path) ? manager : who);
const runsOf = async (name: string): Promise<string[]> => (await srv.req('GET', `/dag-runs?name=${name}`, undefined, admin)).body.dagRuns.map((r: { dagRunId: string }) => r.dagRunId);
const waitLabel = (name: string, id: string, label: string) => eventually(async () => {
  const r = await srv.req('GET', `/dag-runs/${name}/${id}`, undefined, admin);
  return r.status === 200 && r.body.dagRun.statusLabel === label ? r.body.dagRun : undefined;
}, `${name}/${id} ${label}`);

beforeAll(async () => {
  srv.dag('target', 'params:\n  - GREETING: hi\nsteps:\n  - name: s\n    command: echo "$GREETING"\n');
  srv.dag('locked', 'runConfig:\n  disableParamEdit: true\n  disableRunIdEdit: true\nparams:\n  - MODE: safe\nsteps:\n  - name: s\n    command: echo "$MODE"\n');
  srv.dag('victim', 'steps:\n  - name: s\n    command: echo kept\n');
  srv.dag('eraser', 'histRetentionDays: 0\nsteps:\n  - name: s\n    command: echo erase\n');
  srv.dag('caller', `steps:\n  - name: call\n    call: target\n    params: "BASH_ENV=${marker}"\n`);
  await srv.start();
  admin = bearer(await login(srv, 'admin', ADMIN_PASSWORD));
  op = bearer((await userWithRole(srv, admin.authorization!.slice(7), 'op1', 'operator')).token);
  manager = bearer((await userWithRole(srv, admin.authorization!.slice(7), 'mgr1', 'manager')).token);
});
afterAll(() => srv.stop());

// Each names a variable that makes the step's shell (or a program it runs) execute the attacker's code.
const injections: Array<[string, string]> = [
  ['BASH_FUNC_echo%%', `BASH_FUNC_echo%%="() { touch ${marker}; }"`],
  ['BASH_ENV', `BASH_ENV=${marker}.sh`],
  ['LD_PRELOAD', 'LD_PRELOAD=/tmp/evil.so'],
  ['PATH', `PATH=${scratch}:/usr/bin:/bin`],
  ['NODE_OPTIONS', `NODE_OPTIONS="--require ${marker}.js"`],
  ['PYTHONSTARTUP', 'PYTHONSTARTUP=/tmp/x.py'],
];

describe('start params naming a loader or shell variable are refused with 400 naming it; nothing runs', () => {
  const paths: Array<[string, string, Record<string, unknown>]> = [
    ['start', '/dags/target/start', {}],
    ['start-sync', '/dags/target/start-sync', { timeout: 5 }],
    ['enqueue', '/dags/target/enqueue', {}],
    ['inline', '/dag-runs', { spec: 'name: inline-target\nsteps:\n  - name: s\n    command: echo hi\n' }],
    ['inline enqueue', '/dag-runs/enqueue', { spec: 'name: inline-target\nsteps:\n  - name: s\n    command: echo hi\n' }],
  ];
  test.each(paths.flatMap(([label, path, extra]) => injections.map(([name, params]) => [label, name, path, { ...extra, params }] as const)))(
    '%s with %s', async (_label, name, path, b) => {
      const r = await as(op, path, b);
      expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
      expect(r.body.message).toContain(name);
    },
  );

  test('as JSON params too', async () => {
    const r = await as(op, '/dags/target/start', { params: JSON.stringify({ LD_PRELOAD: '/tmp/evil.so' }) });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(r.body.message).toContain('LD_PRELOAD');
  });

  test('no run of the target was created, and no injected code ran', async () => {
    expect(await runsOf('target')).toEqual([]);
    expect(await runsOf('inline-target')).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  test('plain params still start (declared or not, as in the reference)', async () => {
    const r = await as(op, '/dags/target/start', { params: 'GREETING=hello EXTRA_1=x', dagRunId: 'plain-1' });
    expect(r.status).toBe(200);
    await waitLabel('target', 'plain-1', 'succeeded');
  });

  test('a sub-DAG call passing such a param fails its step; the child never runs', async () => {
    const before = await runsOf('target');
    expect((await as(op, '/dags/caller/start', { dagRunId: 'caller-1' })).status).toBe(200);
    const run = await waitLabel('caller', 'caller-1', 'failed');
    expect(JSON.stringify(run.nodes[0])).toContain('BASH_ENV');
    expect(await runsOf('target')).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('runConfig is enforced by the server', () => {
  test.each([
    ['/dags/locked/start', { params: 'MODE=unsafe' }, 'disableParamEdit'],
    ['/dags/locked/start-sync', { params: 'MODE=unsafe', timeout: 5 }, 'disableParamEdit'],
    ['/dags/locked/enqueue', { params: 'MODE=unsafe' }, 'disableParamEdit'],
    ['/dags/locked/start', { dagRunId: 'chosen-id' }, 'disableRunIdEdit'],
    ['/dags/locked/start-sync', { dagRunId: 'chosen-id', timeout: 5 }, 'disableRunIdEdit'],
    ['/dags/locked/enqueue', { dagRunId: 'chosen-id' }, 'disableRunIdEdit'],
  ])('%s %j: 400', async (path, b, what) => {
    const r = await as(op, path, b);
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(r.body.message).toContain(what);
    expect(await runsOf('locked')).toEqual([]);
  });

  test('a start without params or run id runs with the defaults', async () => {
    const r = await as(op, '/dags/locked/start-sync', { timeout: 30 });
    expect(r.status).toBe(200);
    expect(r.body.dagRun.params).toBe('');
  });
});

describe('dagName never reaches another DAG\'s history', () => {
  let kept: string[];
  beforeAll(async () => {
    expect((await as(op, '/dags/victim/start', { dagRunId: 'victim-1' })).status).toBe(200);
    await waitLabel('victim', 'victim-1', 'succeeded');
    kept = await runsOf('victim');
  });

  test.each([
    ['start', '/dags/eraser/start', { dagName: 'victim' }],
    ['start-sync', '/dags/eraser/start-sync', { dagName: 'victim', timeout: 5 }],
    ['enqueue', '/dags/eraser/enqueue', { dagName: 'victim' }],
    ['inline', '/dag-runs', { spec: 'name: victim\nhistRetentionDays: 0\nsteps:\n  - name: s\n    command: "true"\n' }],
    ['inline enqueue', '/dag-runs/enqueue', { spec: 'name: victim\nhistRetentionDays: 0\nsteps:\n  - name: s\n    command: "true"\n' }],
  ])('%s naming the stored DAG victim: 400, its runs are kept', async (_l, path, b) => {
    const r = await as(op, path, b);
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(r.body.message).toContain('victim');
    expect(await runsOf('victim')).toEqual(kept);
  });

  test('reschedule under the name of another stored DAG: 400', async () => {
    const r = await as(op, '/dag-runs/victim/victim-1/reschedule', { dagName: 'eraser' });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
  });

  test('a dagName no stored DAG has still works', async () => {
    const r = await as(op, '/dags/eraser/start', { dagName: 'eraser-copy', dagRunId: 'copy-1' });
    expect(r.status).toBe(200);
    await waitLabel('eraser-copy', 'copy-1', 'succeeded');
  });
});

// The CLI reads the same files as the embedded server: its start refuses the same params (embedded only:
// on kubernetes there is no CLI start of a local file to attack).
if (process.env.SVC_TEST_BACKEND !== 'kubernetes') describe('CLI start', () => {
  const sb = new Sandbox();
  const file = sb.dag('cli-target', `runConfig:\n  disableRunIdEdit: true\nsteps:\n  - name: s\n    command: touch ${marker}-cli\n`);
  test('refuses BASH_ENV and LD_PRELOAD params; nothing runs', async () => {
    for (const p of [`BASH_ENV=${marker}.sh`, 'LD_PRELOAD=/tmp/evil.so']) {
      const r = await sb.run(['start', file, '--params', p]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(p.split('=')[0]);
    }
    expect(existsSync(`${marker}-cli`)).toBe(false);
  });
  test('refuses a run id against disableRunIdEdit', async () => {
    const r = await sb.run(['start', file, '--run-id', 'mine']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('disableRunIdEdit');
    expect(existsSync(`${marker}-cli`)).toBe(false);
  });
});
