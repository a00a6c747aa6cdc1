/**
 * The service log of the real `svc server` (bin/svc.js over dist/): JSON lines on stderr at SVC_LOG_LEVEL,
 * while stdout keeps the one human line saying where it listens.
 */
import type { ChildProcess } from 'node:child_process';
import { Sandbox, eventually } from '../helpers/cli.js';

interface Running { proc: ChildProcess; url: string; stderr: () => string; exited: Promise<number | null> }

async function serve(box: Sandbox): Promise<Running> {
  const proc = box.spawn(['server']);
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  proc.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = await eventually(async () => /listening on (http:\/\/\S+)/.exec(out)?.[1], `svc server to listen (stderr: ${err})`);
  return { proc, url, stderr: () => err, exited };
}

const events = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

async function runHello(s: Running): Promise<void> {
  const r = await fetch(`${s.url}/api/v2/dags/hello/start-sync`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ timeout: 30 }) });
  expect(r.status).toBe(200);
}

const HELLO = 'steps:\n  - name: a\n    command: echo hi\n';
const live: ChildProcess[] = [];
afterAll(() => { for (const p of live) p.kill('SIGKILL'); });

/** A server at that log level with the hello DAG, which it has run to its end. */
async function servedHello(level: string) {
  const box = new Sandbox({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: level });
  box.dag('hello', HELLO);
  const s = await serve(box);
  live.push(s.proc);
  await runHello(s);
  return { box, s };
}

test('SVC_LOG_LEVEL=info: every stderr line is a JSON event, from Started server to Stopped server', async () => {
  const { box, s } = await servedHello('info');
  await eventually(async () => events(s.stderr()).some((e) => e.msg === 'Finished dag-run'), 'the Finished dag-run event');
  s.proc.kill('SIGTERM');
  expect(await s.exited).toBe(0);
  const all = events(s.stderr());
  for (const e of all) {
    expect(['debug', 'info', 'warn', 'error']).toContain(e.level);
    expect(e).toMatchObject({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), pid: s.proc.pid, msg: expect.any(String) });
  }
  expect(all[0]).toMatchObject({ level: 'info', msg: 'Started server', url: s.url, dagsDir: box.dagsDir, dataDir: box.dataDir });
  expect(all.find((e) => e.msg === 'Finished dag-run')).toMatchObject({ level: 'info', dag: 'hello', status: 'succeeded' });
  expect(all.slice(-2)).toEqual([
    expect.objectContaining({ level: 'info', msg: 'Received stop signal', signal: 'SIGTERM' }),
    expect.objectContaining({ level: 'info', msg: 'Stopped server' }),
  ]);
});

test('SVC_LOG_LEVEL=warn leaves the info events out', async () => {
  const { s } = await servedHello('warn');
  s.proc.kill('SIGTERM');
  expect(await s.exited).toBe(0);
  expect(s.stderr()).toBe('');
});

test('an unknown SVC_LOG_LEVEL is a configuration error, before anything starts', async () => {
  const box = new Sandbox({ SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'verbose' });
  const r = await box.run(['server']);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe('configuration error: SVC_LOG_LEVEL: "verbose" must be one of debug, info, warn, error\n');
});
