/**
 * kill -9 of the server while runs are running, queued and waiting for approval; a new server on the
 * same data directory finishes everything: nothing lost, nothing run twice (marker files), nothing
 * left running. Runs the real `svc server` (dist/, built by the test suite's pretest).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { eventually } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
const dagsDir = join(dir, 'dags');
const marks = join(dir, 'marks');
const gate = join(dir, 'open');
const bin = resolve('bin/svc.js');

interface Server { proc: ChildProcess; url: string }

function startServer(): Promise<Server> {
  const proc = spawn(process.execPath, [bin, 'server'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh', SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((res, rej) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) res({ proc, url: m[1]! });
    });
    proc.stderr!.on('data', () => undefined);
    proc.once('exit', (code) => rej(new Error(`server exited with ${code}: ${out}`)));
  });
}

async function call(s: Server, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.url}/api/v2${path}`, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  return { status: r.status, body: await r.json().catch(() => undefined) };
}

const count = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);

let server: Server | undefined;
afterAll(() => { server?.proc.kill('SIGKILL'); });

test('kill -9 with runs running, queued and waiting: after a restart all finish, each step ran once', async () => {
  mkdirSync(dagsDir, { recursive: true });
  mkdirSync(marks, { recursive: true });
  writeFileSync(join(dagsDir, 'work.yaml'), [
    'maxActiveRuns: 2',
    'steps:',
    '  - name: body',
    // Held until the test opens the gate (after the restart): the runs are running, and q1 queued, for as
    // long as the test looks, however slow the machine.
    `    command: echo x >> ${marks}/$DAG_RUN_ID.start; while [ ! -e ${gate} ]; do sleep 0.05; done; echo x >> ${marks}/$DAG_RUN_ID.end`,
    '  - name: after',
    `    command: echo x >> ${marks}/$DAG_RUN_ID.after`,
  ].join('\n'));
  writeFileSync(join(dagsDir, 'gate.yaml'), 'steps:\n  - name: ok\n    type: hitl\n  - name: then\n    command: echo done\n');
  server = await startServer();
  const s1 = server;
  const running = ['r1', 'r2'];
  const queued = ['q1', 'q2', 'q3'];
  for (const id of running) expect((await call(s1, 'POST', '/dags/work/start', { dagRunId: id })).status).toBe(200);
  for (const id of queued) expect((await call(s1, 'POST', '/dags/work/enqueue', { dagRunId: id })).status).toBe(200);
  expect((await call(s1, 'POST', '/dags/gate/start-sync', { dagRunId: 'g1', timeout: 30 })).body.dagRun.statusLabel).toBe('waiting');
  await eventually(async () => running.every((id) => count(join(marks, `${id}.start`)) === 1), 'both runs running');
  expect((await call(s1, 'GET', '/dag-runs/work/q1')).body.dagRun.statusLabel).toBe('queued');

  s1.proc.kill('SIGKILL');
  await new Promise((r) => s1.proc.once('exit', r));

  server = await startServer();
  const s2 = server;
  writeFileSync(gate, '');
  const all = [...running, ...queued];
  await eventually(async () => {
    const r = await call(s2, 'GET', '/dag-runs?name=work');
    return r.body.dagRuns.length === all.length && r.body.dagRuns.every((x: any) => x.statusLabel === 'succeeded');
  }, 'every run of work succeeded', 60_000);
  for (const id of all) {
    expect([id, count(join(marks, `${id}.start`)), count(join(marks, `${id}.end`)), count(join(marks, `${id}.after`))]).toEqual([id, 1, 1, 1]);
  }
  expect(readdirSync(marks).length).toBe(all.length * 3);

  // the run waiting for approval survived and can be approved on the new server
  expect((await call(s2, 'GET', '/dag-runs/gate/g1')).body.dagRun.statusLabel).toBe('waiting');
  expect((await call(s2, 'POST', '/dag-runs/gate/g1/steps/ok/approve', {})).status).toBe(200);
  await eventually(async () => (await call(s2, 'GET', '/dag-runs/gate/g1')).body.dagRun.statusLabel === 'succeeded', 'approved run done');

  const active = await call(s2, 'GET', '/dag-runs');
  expect(active.body.dagRuns.filter((x: any) => [0, 1, 5, 7].includes(x.status))).toEqual([]);

  s2.proc.kill('SIGTERM');
  const code = await new Promise((r) => s2.proc.once('exit', r));
  expect(code).toBe(0);
  server = undefined;
});
