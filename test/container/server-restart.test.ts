/**
 * kill -9 of `svc server` while a step runs in a run's container: a new server on the same data directory
 * adopts the running exec, the run finishes, every step ran once, and the run's container goes at the end.
 * Runs the real server (dist/, built by the test suite's pretest) against the test engine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { eventually } from '../helpers/wait.js';

interface Server { proc: ChildProcess; url: string }

describePodman('container steps across a server crash (Podman)', () => {
  let pm: Podman;
  let server: Server | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'svc-container-crash-'));
  const dagsDir = join(dir, 'dags');
  const marks = join(dir, 'marks');
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => {
    server?.proc.kill('SIGKILL');
    await pm?.stop();
  });

  function startServer(): Promise<Server> {
    const proc = spawn(process.execPath, [resolve('bin/svc.js'), 'server'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh', SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dagsDir, SVC_LOG_LEVEL: 'warn', DOCKER_HOST: pm.dockerHost },
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

  const call = async (s: Server, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const r = await fetch(`${s.url}/api/v2${path}`, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
    return { status: r.status, body: await r.json().catch(() => undefined) };
  };
  const count = (name: string): number => (existsSync(join(marks, name)) ? readFileSync(join(marks, name), 'utf8').split('\n').filter(Boolean).length : 0);

  test('kill -9 mid-step: the next server adopts the exec, each step runs once, the container goes', async () => {
    mkdirSync(dagsDir, { recursive: true });
    mkdirSync(marks, { recursive: true });
    chmodSync(marks, 0o777);
    writeFileSync(join(dagsDir, 'boxed.yaml'), [
      'container:', `  image: ${TEST_IMAGE}`, `  volumes: ["${marks}:/marks"]`,
      'steps:',
      '  - name: body',
      '    command: echo x >> /marks/start; sleep 3; echo x >> /marks/end',
      '  - name: after',
      '    command: echo x >> /marks/after',
    ].join('\n'));
    const s1 = server = await startServer();
    expect((await call(s1, 'POST', '/dags/boxed/start', { dagRunId: 'crash1' })).status).toBe(200);
    await eventually(async () => count('start') === 1, 'the step started in its container', 60_000);
    s1.proc.kill('SIGKILL');
    await new Promise((r) => s1.proc.once('exit', r));

    const s2 = server = await startServer();
    await eventually(async () => (await call(s2, 'GET', '/dag-runs/boxed/crash1')).body?.dagRun?.statusLabel === 'succeeded', 'the run succeeded', 90_000);
    expect([count('start'), count('end'), count('after')]).toEqual([1, 1, 1]);
    await eventually(async () => (await pm.svcContainers()).every((c) => c.Labels['svc.io/dag-run'] !== 'crash1'), 'the run container removed', 30_000);
  }, 180_000);
});
