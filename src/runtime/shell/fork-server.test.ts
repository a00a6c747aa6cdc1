import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest } from '../../core/ports/executor.js';
import type { ExecResult } from '../../core/run/state.js';
import { ForkServer, type ForkRequest } from './fork-server.js';
import { nativeForkServer } from './native.js';
import { ProcessExecutor } from './process.js';
import type { LocalRequest } from './local.js';
import { parseExecRecord } from './records.js';

const NATIVE = nativeForkServer();
if (!NATIVE && process.env.CI === 'true') throw new Error('the native fork server is required under CI=true (npm run build, with a C compiler: Debian gcc)');
if (!NATIVE) console.warn('!!! SKIPPING fork server tests: no dist/svc-fork-server (npm run build with a C compiler)');
/** describe, when the build made the helper. */
const withHelper = NATIVE ? describe : describe.skip;

/** Shell code that prints the shell's own start time in clock ticks (field 22 of its stat; its name has no space). */
const OWN_TICKS = "cut -d ' ' -f 22 /proc/$$/stat";

const record = (file: string, key = 'step.0') => (existsSync(file) ? parseExecRecord(readFileSync(file, 'utf8'), key) : undefined);

/** Until the exec record names the running process (the Node path first writes a placeholder pid 0). */
async function runningPid(recordFile: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const pid = record(recordFile)?.pid;
    if (pid) return pid;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no process line in ${recordFile}`);
}

interface Outcome { pid?: number; code?: number; signal?: number; failed?: string; lost?: boolean; mayHaveStarted?: boolean }

function run(server: ForkServer, req: ForkRequest, onSpawn?: (pid: number) => void): Promise<Outcome> {
  return new Promise((resolve) => {
    let pid: number | undefined;
    server.spawn(req, {
      spawned: (p) => { pid = p; onSpawn?.(p); },
      exited: (code, signal) => resolve({ pid, code, signal }),
      failed: (failed) => resolve({ failed }),
      lost: (mayHaveStarted) => resolve({ pid, lost: true, mayHaveStarted }),
    });
  });
}

function forkRequest(dir: string, argv: string[], extra: Partial<ForkRequest> = {}): ForkRequest {
  return { argv, cwd: dir, env: { PATH: '/usr/bin:/bin', ONLY: 'this' }, stdout: join(dir, 'out.log'), stderr: join(dir, 'err.log'), recordFile: join(dir, 'records'), recordKey: 'step.0', commandIndex: 0, ...extra };
}

withHelper('ForkServer', () => {
  const server = new ForkServer({ native: NATIVE });
  afterAll(() => server.close());

  test('runs a command in its own session with exactly the given environment, cwd and log files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const script = 'echo "env=$(env | grep -v -e ^PWD= -e ^SHLVL= -e ^_= | sort | tr "\\n" ,)"; pwd; echo oops >&2; ps -o sid= -p $$; exit 3';
    const r = await run(server, forkRequest(dir, ['/bin/sh', '-c', script]));
    expect(r.code).toBe(3);
    const [envLine, cwd, sid] = readFileSync(join(dir, 'out.log'), 'utf8').trim().split('\n');
    expect(envLine).toBe('env=ONLY=this,PATH=/usr/bin:/bin,');
    expect(cwd).toBe(dir);
    expect(Number(sid)).toBe(r.pid);
    expect(readFileSync(join(dir, 'err.log'), 'utf8')).toBe('oops\n');
  });

  test('creates the exec record (pid and start time) before the command runs; merged logs share one file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const log = join(dir, 'all.log');
    // The process tells its own start time (read from the test when the start is reported, it may already be gone).
    const r = await run(server, forkRequest(dir, ['/bin/sh', '-c', `cat ${join(dir, 'records')}; ${OWN_TICKS}; echo err >&2`], { stdout: log, stderr: log }));
    const [line, ticks, err] = readFileSync(log, 'utf8').trim().split('\n');
    expect(line).toMatch(/^step\.0 \{/);
    const rec = JSON.parse(line!.slice('step.0 '.length)) as { pid: number; startTicks: string; startedAt: string };
    expect(rec.pid).toBe(r.pid);
    expect(rec.startTicks).toBe(ticks);
    expect(Number.isNaN(Date.parse(rec.startedAt))).toBe(false);
    expect(err).toBe('err');
  });

  test('a signal death is reported as the signal; SIGPIPE and SIGINT are not left ignored in the child', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const r = await run(server, forkRequest(dir, ['/bin/sh', '-c', 'grep -E "^Sig(Ign|Blk)" /proc/self/status; kill -TERM $$']));
    expect(r).toMatchObject({ code: -1, signal: 15 });
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toMatch(/SigBlk:\s+0+\nSigIgn:\s+0+\n/);
  });

  test('a missing program, cwd or log directory fails the command with 127 and the reason in its stderr log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    expect((await run(server, forkRequest(dir, ['no-such-program-xyz']))).code).toBe(127);
    expect(readFileSync(join(dir, 'err.log'), 'utf8')).toMatch(/svc: no-such-program-xyz: No such file or directory/);
    expect((await run(server, forkRequest(dir, ['/bin/true'], { cwd: join(dir, 'gone'), stderr: join(dir, 'err2.log') }))).code).toBe(127);
    expect(readFileSync(join(dir, 'err2.log'), 'utf8')).toMatch(/svc: chdir .*gone: No such file or directory/);
    expect((await run(server, forkRequest(dir, ['/bin/true'], { stdout: join(dir, 'no', 'out.log') }))).code).toBe(127);
  });

  test('many concurrent requests each get their own outcome', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const codes = await Promise.all(Array.from({ length: 40 }, (_, i) => run(server, forkRequest(dir, ['/bin/sh', '-c', `exit ${i}`], { recordFile: '' }))));
    expect(codes.map((c) => c.code)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  /** The helper's idle children: the spare forked ahead of the next request (still a copy of the helper). */
  const spares = (): number[] => {
    const helper = (server as unknown as { child: { pid: number } }).child.pid;
    const r = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(helper)], { encoding: 'utf8' });
    return r.stdout.split('\n').filter((l) => /\bsvc-fork-server$/.test(l.trim())).map((l) => Number(l.trim().split(/\s+/)[0]));
  };
  const oneSpare = async (): Promise<number> => {
    for (let i = 0; i < 200; i++) { const s = spares(); if (s.length === 1) return s[0]!; await new Promise((r) => setTimeout(r, 10)); }
    throw new Error(`no single spare: ${spares().join(',')}`);
  };

  test('a request runs in the spare child forked ahead of it; a spare that died is replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    await run(server, forkRequest(dir, ['/bin/true']));
    const spare = await oneSpare();
    const r = await run(server, forkRequest(dir, ['/bin/sh', '-c', 'exit 5']));
    expect(r).toMatchObject({ pid: spare, code: 5 });
    const next = await oneSpare();
    process.kill(next, 'SIGKILL');
    // Once the helper has reaped it, a new spare takes its place (a request handed to a spare that is
    // being killed is reported killed, as any command killed by a signal).
    for (let i = 0; i < 200 && (spares()[0] ?? next) === next; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await oneSpare()).not.toBe(next);
    const again = await run(server, forkRequest(dir, ['/bin/sh', '-c', 'echo $$; exit 6'], { stdout: join(dir, 'again.out') }));
    expect(again.code).toBe(6);
    expect(again.pid).not.toBe(next);
    expect(readFileSync(join(dir, 'again.out'), 'utf8')).toBe(`${again.pid}\n`);
  });

  test('a request larger than a pipe holds, handed over while other children exit, runs exactly once and whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    // Six variables of 100 kB (one string may not exceed 128 kB in exec): a frame of ~600 kB.
    const bigEnv = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`BIG${i}`, 'x'.repeat(100_000)]));
    const count = join(dir, 'count');
    const ROUNDS = 40;
    for (let round = 0; round < ROUNDS; round++) {
      // Children exiting all through the handover: each exit is a SIGCHLD that interrupts a blocked write
    // (before writes resumed after EINTR, about one run in two of this test saw a command run twice).
      const churn = Array.from({ length: 30 }, (_, i) => run(server, forkRequest(dir, ['/bin/sleep', `0.0${i % 10}`], { recordFile: '' })));
      const r = await run(server, forkRequest(dir, ['/bin/sh', '-c', `echo "${round} \${#BIG0} \${#BIG5}" >> ${count}`], { env: { PATH: '/usr/bin:/bin', ...bigEnv }, recordFile: '' }));
      await Promise.all(churn);
      expect(r.code).toBe(0);
    }
    expect(readFileSync(count, 'utf8')).toBe(Array.from({ length: ROUNDS }, (_, i) => `${i} 100000 100000\n`).join(''));
  });

  test('a helper started ahead (warm) and never used does not keep the process alive', () => {
    const mod = new URL('./fork-server.ts', import.meta.url).pathname.replace('/src/', '/dist/').replace(/\.ts$/, '.js');
    const script = `import { ForkServer } from ${JSON.stringify(mod)}; const s = new ForkServer(${JSON.stringify({ native: NATIVE })}); s.warm(); setTimeout(() => console.log('still here'), 100);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
    expect(r.signal).toBeNull();
    expect(r.stdout).toBe('still here\n');
  });

});

describe('ForkServer without the helper', () => {
  test('no helper built: the server is unavailable (steps are spawned from Node); one that cannot start hands requests back', async () => {
    expect(new ForkServer({}).available()).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const broken = new ForkServer({ native: '/nonexistent/svc-fork-server' });
    expect(broken.available()).toBe(true);
    expect(await run(broken, forkRequest(dir, ['/bin/true']))).toEqual({ pid: undefined, lost: true, mayHaveStarted: false });
    expect(broken.available()).toBe(false);
    expect(existsSync(join(dir, 'records'))).toBe(false);
  });
});

withHelper('ForkServer: the helper', () => {
  test('ends on a frame that does not parse (its requests are then lost, not left waiting)', () => {
    // A frame of 8 bytes whose one field claims 100.
    const frame = Buffer.from([0, 0, 0, 8, 0, 0, 0, 100, 0x61, 0x62, 0x63, 0x64]);
    const r = spawnSync(NATIVE!, [], { input: frame, encoding: 'utf8', timeout: 10_000 });
    expect(r.stdout).toBe('R\n');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('malformed frame');
  });

  /** A request frame as the engine encodes it: length, then each field as its length and bytes. */
  const frame = (fields: string[]): Buffer => {
    const parts = fields.map((f) => Buffer.from(f));
    const body = Buffer.concat(parts.flatMap((b) => [Buffer.from([b.length >>> 24, (b.length >>> 16) & 255, (b.length >>> 8) & 255, b.length & 255]), b]));
    return Buffer.concat([Buffer.from([body.length >>> 24, (body.length >>> 16) & 255, (body.length >>> 8) & 255, body.length & 255]), body]);
  };
  const requestFields = (dir: string, cmd: string): string[] =>
    ['1', dir, join(dir, 'out.log'), join(dir, 'err.log'), join(dir, 'records'), 'step.0', '0', '3', '/bin/sh', '-c', cmd, 'PATH=/usr/bin:/bin'];

  test('a malformed frame after a command started: no more requests, but the command\'s code is still recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const child = spawn(NATIVE!, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.stdin.write(frame(requestFields(dir, 'sleep 0.3; exit 4')));
    await new Promise((r) => setTimeout(r, 100));
    child.stdin.write(Buffer.from([0, 0, 0, 8, 0, 0, 0, 100, 0x61, 0x62, 0x63, 0x64]));
    expect(await exited).toBe(1);
    expect(record(join(dir, 'records'))).toMatchObject({ pid: expect.any(Number), exitCode: 4 });
  });

  test('a length past any request is refused at once, not buffered toward', () => {
    const r = spawnSync(NATIVE!, [], { input: Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]), encoding: 'utf8', timeout: 10_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('malformed frame');
  });

  test('once its engine is gone it lets go of the engine\'s output pipes, while its commands still run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const child = spawn(NATIVE!, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    let replies = '';
    child.stdout.on('data', (d: Buffer) => { replies += d.toString(); });
    child.stdin.write(frame(requestFields(dir, 'sleep 1; exit 0')));
    for (let i = 0; i < 100 && !/^S /m.test(replies); i++) await new Promise((r) => setTimeout(r, 10));
    const pid = Number(/^S 1 (\d+)$/m.exec(replies)?.[1]);
    const ended = new Promise<void>((r) => { let n = 0; const one = () => { if (++n === 2) r(); }; child.stdout.on('end', one); child.stderr.on('end', one); });
    child.stdin.end();
    await ended;
    expect(existsSync(`/proc/${pid}`)).toBe(true); // the command still runs: only the pipes were let go
    await new Promise<void>((r) => child.on('exit', () => r()));
    expect(record(join(dir, 'records'))).toMatchObject({ pid, exitCode: 0 });
  });

  test('is the parent of the commands it starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const server = new ForkServer({ native: NATIVE });
    expect((await run(server, forkRequest(dir, ['/bin/sh', '-c', 'cat /proc/$PPID/comm']))).code).toBe(0);
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('svc-fork-server\n');
    server.close();
  });

  test('a command sees exactly what a process spawned from Node sees: environment, directory, signals, descriptors, session', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    // Everything a process inherits that could differ: dispositions and mask, open descriptors, umask,
    // limits, the session and group it leads, its environment (sorted) and directory.
    const probe = [
      'grep -E "^(SigBlk|SigIgn|SigCgt|NoNewPrivs|Seccomp)" /proc/self/status',
      'ls /proc/self/fd | sort -n | tr "\\n" " "; echo', 'umask', 'ulimit -a',
      'test "$(ps -o sid= -p $$ | tr -d " ")" = $$ && echo session-leader', 'test "$(ps -o pgid= -p $$ | tr -d " ")" = $$ && echo group-leader',
      'env | grep -v -e "^_=" | sort', 'pwd',
    ].join('; ');
    const env = { PATH: '/usr/bin:/bin', HOME: dir, LANG: 'C', ODD: 'a b\n$c \'"' };
    const server = new ForkServer({ native: NATIVE });
    const forked = await run(server, forkRequest(dir, ['/bin/sh', '-c', probe], { env, stdout: join(dir, 'forked.out'), stderr: join(dir, 'forked.err') }));
    server.close();
    const spawned = spawnSync('/bin/sh', ['-c', probe], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], detached: true } as Parameters<typeof spawnSync>[2] & { encoding: 'utf8' });
    expect(forked.code).toBe(0);
    expect(readFileSync(join(dir, 'forked.err'), 'utf8')).toBe('');
    expect(readFileSync(join(dir, 'forked.out'), 'utf8')).toBe(spawned.stdout);
    expect(spawned.stdout).toMatch(/session-leader\ngroup-leader\n/);
  });

  test('outlives its engine: a command still running when the engine goes away has its exit code recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const records = join(dir, 'records');
    const server = new ForkServer({ native: NATIVE });
    const started = new Promise<number>((resolve) => {
      server.spawn(forkRequest(dir, ['/bin/sh', '-c', 'sleep 0.5; exit 7']), { spawned: resolve, exited: () => undefined, failed: () => undefined, lost: () => undefined });
    });
    const pid = await started;
    const helper = (server as unknown as { child: { pid: number } }).child.pid;
    server.close(); // end of input: what the helper sees when its engine dies
    await new Promise((r) => setTimeout(r, 100));
    expect(record(records)).toMatchObject({ pid });
    expect(record(records)?.exitCode).toBeUndefined();
    expect(existsSync(`/proc/${helper}`)).toBe(true);
    await eventuallyRecorded(records);
    expect(record(records)).toMatchObject({ pid, exitCode: 7 });
    // Then it leaves: nothing of it stays behind.
    for (let i = 0; i < 100 && existsSync(`/proc/${helper}/stat`) && !/\) Z/.test(readFileSync(`/proc/${helper}/stat`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(`/proc/${helper}/stat`) ? readFileSync(`/proc/${helper}/stat`, 'utf8') : ') Z').toMatch(/\) Z/);
  });
});

withHelper('ProcessExecutor when the fork server dies', () => {
  test('a command it started runs on and is waited for; with its recorder gone, the outcome is unknown (interrupted)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const server = new ForkServer({ native: NATIVE });
    const running = executorOf(server).start(execRequest(dir, 'sleep 0.5; echo late; exit 6'));
    await runningPid(join(dir, 'records'));
    (server as unknown as { child: { kill(s: string): void } }).child.kill('SIGKILL');
    await expect(running.result).resolves.toMatchObject({ exitCode: 1, output: 'late' });
    expect(readFileSync(join(dir, 'step.err'), 'utf8')).toMatch(/interrupted: exit status unknown/);
    expect(server.available()).toBe(true);
    server.close();
  });
});

/** Until the record has both the process and its exit code. */
async function eventuallyRecorded(recordFile: string, key = 'step.0'): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = record(recordFile, key);
    if (r?.pid && r.exitCode !== undefined) return;
    await new Promise((res) => setTimeout(res, 10));
  }
}

/** The files of a test request are given with it: the layout reads them back. */
const layout = (req: ExecRequest) => (req as LocalRequest).files;
const executorOf = (forkServer?: ForkServer) => new ProcessExecutor({ layout, ...(forkServer ? { forkServer } : {}) });

function execRequest(dir: string, command: string, over: Partial<LocalRequest> = {}): LocalRequest {
  return {
    exec: { node: 'step', attempt: 0, execution: 0 }, step: {} as ExecRequest['step'], commands: [command], shell: ['/bin/sh', '-e'], shellExplicit: false,
    env: { PATH: '/usr/bin:/bin' }, workingDir: dir, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: true,
    files: { stdout: join(dir, 'step.out'), stderr: join(dir, 'step.err'), recordFile: join(dir, 'records'), recordKey: 'step.0', scratchDir: join(dir, 'scratch') },
    copies: {}, merged: false,
    ...over,
  } as LocalRequest;
}

/** The same executor behaviour whichever way the processes are started. */
const modes: [string, () => ProcessExecutor][] = [
  ['node spawn', () => executorOf()],
  ...(NATIVE ? [['fork server', () => executorOf(new ForkServer({ native: NATIVE }))] as [string, () => ProcessExecutor]] : []),
  ['no fork server built (spawned from Node)', () => executorOf(new ForkServer({}))],
];

describe.each(modes)('ProcessExecutor (%s)', (_mode, make) => {
  const executor = make();
  const start = (req: ExecRequest): Promise<ExecResult> => executor.start(req).result;

  test('exit code, captured output and the exec record (process, then exit code)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    await expect(start(execRequest(dir, 'echo hello; exit 4'))).resolves.toMatchObject({ exitCode: 4, error: 'exit status 4', output: 'hello' });
    await eventuallyRecorded(join(dir, 'records'));
    expect(record(join(dir, 'records'))).toMatchObject({ pid: expect.any(Number), exitCode: 4 });
  });

  test('concurrent executions share the attempt\'s records file, each line whole and under its own key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const req = (i: number) => execRequest(dir, `exit ${i}`, { capture: false, files: { stdout: join(dir, `s${i}.out`), stderr: join(dir, `s${i}.err`), recordFile: join(dir, 'records'), recordKey: `s${i}.0`, scratchDir: join(dir, 'scratch') } });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => start(req(i))));
    expect(results.map((r) => r.exitCode)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    for (let i = 0; i < 20; i++) await eventuallyRecorded(join(dir, 'records'), `s${i}.0`);
    const text = readFileSync(join(dir, 'records'), 'utf8');
    for (let i = 0; i < 20; i++) expect(parseExecRecord(text, `s${i}.0`)).toMatchObject({ pid: expect.any(Number), exitCode: i });
    expect(text.split('\n').filter(Boolean).every((l) => /^s\d+\.0 (\d+|\{.*\})$/.test(l))).toBe(true);
  });

  test('adopting a multi-command step whose engine died between commands runs the commands after the adopted one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const f = join(dir, 'ran');
    const req = execRequest(dir, 'x', { capture: false, commands: [`echo one >> ${f}`, `echo two >> ${f}`, `echo three >> ${f}; exit 3`] });
    // Command 0 started and ended with 0 under the engine that died; its process is long gone.
    writeFileSync(join(dir, 'records'), 'step.0 {"pid":999999999,"cmd":0,"startTicks":"1"}\nstep.0 0\n');
    writeFileSync(f, 'one\n');
    const adopted = await executor.adopt(req);
    await expect(adopted!.result).resolves.toMatchObject({ exitCode: 3 });
    expect(readFileSync(f, 'utf8')).toBe('one\ntwo\nthree\n');
    expect(record(join(dir, 'records'))).toMatchObject({ cmd: 2, exitCode: 3 });
    // The last command's outcome is final: nothing runs again.
    await expect((await executor.adopt(req))!.result).resolves.toMatchObject({ exitCode: 3 });
    expect(readFileSync(f, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  test('a command that sets its own EXIT trap still has its exit code recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    await expect(start(execRequest(dir, "trap 'echo bye' EXIT; exit 3"))).resolves.toMatchObject({ exitCode: 3, output: 'bye' });
    await eventuallyRecorded(join(dir, 'records'));
    expect(record(join(dir, 'records'))?.exitCode).toBe(3);
  });

  test('a stop signal reaches the whole process group', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const running = executor.start(execRequest(dir, 'sleep 30 & sleep 30; wait'));
    await runningPid(join(dir, 'records'));
    running.signal('SIGTERM');
    await expect(running.result).resolves.toMatchObject({ signal: 'SIGTERM' });
  });

  test('a timeout kills the command', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    await expect(start(execRequest(dir, 'sleep 30', { timeoutMs: 200 }))).resolves.toMatchObject({ exitCode: 124, timedOut: true });
  });

  test('sequential commands stop at the first failure; a missing command is 127', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    await expect(start(execRequest(dir, 'echo one', { commands: ['echo one', 'false', 'echo three'] }))).resolves.toMatchObject({ exitCode: 1, output: 'one' });
    const other = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    await expect(start(execRequest(other, 'x', { shell: [], commands: ['no-such-program-xyz arg'], capture: false }))).resolves.toMatchObject({ exitCode: 127 });
  });

  test('an execution whose records exist is adopted, never run a second time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const req = execRequest(dir, 'echo ran >> count.txt; sleep 0.4; exit 5', { capture: false });
    expect(executor.begun(req)).toBe(false);
    const first = executor.start(req);
    await runningPid(join(dir, 'records'));
    // A restarted engine whose saved status lags behind sees it has begun, and adopts it.
    expect(executor.begun(req)).toBe(true);
    const again = await executor.adopt(req);
    await expect(again!.result).resolves.toMatchObject({ exitCode: 5 });
    await expect(first.result).resolves.toMatchObject({ exitCode: 5 });
    expect(readFileSync(join(dir, 'count.txt'), 'utf8')).toBe('ran\n');
  });
});
