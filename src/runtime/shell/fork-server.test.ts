import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest } from '../../core/ports/executor.js';
import type { ExecResult } from '../../core/run/state.js';
import { ForkServer, type ForkRequest } from './fork-server.js';
import { WARM_BOOT } from './fork-server-script.js';
import { nativeForkServer } from './native.js';
import { ProcessExecutor } from './process.js';
import { parseExecRecord } from './records.js';

const hasPerl = existsSync('/usr/bin/perl') || existsSync('/bin/perl');
if (!hasPerl && process.env.CI === 'true') throw new Error('perl is required under CI=true (Debian package perl-base)');
if (!hasPerl) console.warn('!!! SKIPPING fork server tests: no perl on this machine');
const NATIVE = nativeForkServer();
if (!NATIVE && process.env.CI === 'true') throw new Error('the native fork server is required under CI=true (npm run build, with a C compiler: Debian gcc)');
if (!NATIVE) console.warn('!!! SKIPPING native fork server tests: no dist/svc-fork-server (npm run build with a C compiler)');
const BASH = ['/bin/bash', '/usr/bin/bash'].find((b) => existsSync(b));
if (!BASH && process.env.CI === 'true') throw new Error('bash is required under CI=true');
if (!BASH) console.warn('!!! SKIPPING pre-started shell tests: no bash on this machine');

/** Both implementations run every test (ADR 0007): the options that choose each. */
type ServerOptions = ConstructorParameters<typeof ForkServer>[0];
const IMPLS: Array<[string, ServerOptions]> = [
  ...(hasPerl ? [['perl', {}] as [string, ServerOptions]] : []),
  ...(NATIVE ? [['native', { native: NATIVE }] as [string, ServerOptions]] : []),
];
/** describe.each over the implementations there are (jest refuses an empty table). */
const eachImpl = (name: string, body: (opts: ServerOptions) => void): void => {
  if (IMPLS.length === 0) { describe.skip(name, () => test('no fork server implementation', () => undefined)); return; }
  describe.each(IMPLS)(`${name} (%s)`, (_impl, opts) => body(opts));
};

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

eachImpl('ForkServer', (opts) => {
  const server = new ForkServer(opts);
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
    return r.stdout.split('\n').filter((l) => /\b(perl|svc-fork-server)$/.test(l.trim())).map((l) => Number(l.trim().split(/\s+/)[0]));
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
    const script = `import { ForkServer } from ${JSON.stringify(mod)}; const s = new ForkServer(${JSON.stringify(opts)}); s.warm(); setTimeout(() => console.log('still here'), 100);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 });
    expect(r.signal).toBeNull();
    expect(r.stdout).toBe('still here\n');
  });

});

describe('ForkServer: which helper runs', () => {
  test('without perl (and no native helper) the server is unavailable and in-flight requests are handed back, not started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const none = new ForkServer({ native: '/nonexistent/svc-fork-server', perl: '/nonexistent/perl' });
    expect(none.available()).toBe(true);
    // The native helper fails first, then the Perl one: the request is handed back once neither came up.
    expect(await run(none, forkRequest(dir, ['/bin/true']))).toEqual({ pid: undefined, lost: true, mayHaveStarted: false });
    expect(none.available()).toBe(true);
    expect(await run(none, forkRequest(dir, ['/bin/true']))).toEqual({ pid: undefined, lost: true, mayHaveStarted: false });
    expect(none.available()).toBe(false);
    expect(existsSync(join(dir, 'records'))).toBe(false);
  });

  (hasPerl ? test : test.skip)('a native helper that cannot start gives way to the Perl one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const server = new ForkServer({ native: '/nonexistent/svc-fork-server' });
    expect(await run(server, forkRequest(dir, ['/bin/true']))).toMatchObject({ lost: true, mayHaveStarted: false });
    const r = await run(server, forkRequest(dir, ['/bin/sh', '-c', 'cat /proc/$PPID/comm']));
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('perl\n');
    expect(server.available()).toBe(true);
    server.close();
  });

  (NATIVE ? test : test.skip)('the native helper ends on a frame that does not parse (its requests are then lost, not left waiting)', () => {
    // A frame of 8 bytes whose one field claims 100.
    const frame = Buffer.from([0, 0, 0, 8, 0, 0, 0, 100, 0x61, 0x62, 0x63, 0x64]);
    const r = spawnSync(NATIVE!, [WARM_BOOT, 'X'], { input: frame, encoding: 'utf8', timeout: 10_000 });
    expect(r.stdout).toBe('R\n');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('malformed frame');
  });

  (NATIVE ? test : test.skip)('the engine uses the native helper the build made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fork-'));
    const server = new ForkServer({ native: NATIVE });
    expect((await run(server, forkRequest(dir, ['/bin/sh', '-c', 'cat /proc/$PPID/comm']))).code).toBe(0);
    expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('svc-fork-server\n');
    server.close();
  });

  (BASH ? test : test.skip)('a shell handed a request cut short (no end marker) runs none of it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    const code = (file: string): string => `touch ${file}; echo ran\n#svc-end`;
    for (const [name, text] of [['whole', code(join(dir, 'whole'))], ['cut', code(join(dir, 'cut')).slice(0, -3)], ['empty', '']] as const) {
      writeFileSync(join(dir, `${name}.in`), text);
      spawnSync('sh', ['-c', `exec 3< "$1"; shift; exec "$@"`, 'sh', join(dir, `${name}.in`), BASH!, '-e', '-c', WARM_BOOT], { encoding: 'utf8' });
    }
    expect(existsSync(join(dir, 'whole'))).toBe(true);
    expect(existsSync(join(dir, 'cut'))).toBe(false);
  });
});


/**
 * Pre-started shells (ADR 0004): after a bash request the server starts the next shell ahead, with that
 * request's argv, environment and directory, and hands it the next request as shell code. Whatever runs
 * in it must see exactly what a freshly exec'd shell sees.
 */
eachImpl('ForkServer: pre-started shells', (opts) => {
  if (!BASH) return;
  let server: ForkServer;
  beforeEach(() => { server = new ForkServer(opts); });
  afterEach(() => server.close());

  const bashRequest = (dir: string, cmd: string, n: number, extra: Partial<ForkRequest> = {}): ForkRequest =>
    forkRequest(dir, [BASH!, '-e', '-c', cmd], { stdout: join(dir, `out${n}`), stderr: join(dir, `err${n}`), recordKey: `s${n}.0`, ...extra, env: { PATH: '/usr/bin:/bin', HOME: dir, STEP: String(n), ...extra.env } });
  const out = (dir: string, n: number): string => readFileSync(join(dir, `out${n}`), 'utf8');
  const err = (dir: string, n: number): string => readFileSync(join(dir, `err${n}`), 'utf8');
  /** Request 0 runs in a shell exec'd for it; request 1, the same but for STEP, in the one started ahead. */
  async function coldThenWarm(dir: string, cmd: string, second: Partial<ForkRequest> = {}): Promise<[Outcome, Outcome]> {
    const cold = await run(server, bashRequest(dir, cmd, 0));
    const warm = await run(server, bashRequest(dir, cmd, 1, second));
    return [cold, warm];
  }
  const CMDLINE = 'tr "\\0" " " < /proc/$$/cmdline';

  test('the next bash request runs in the shell started ahead, as its process, with its record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    const cold = await run(server, bashRequest(dir, CMDLINE, 0));
    const warm = await run(server, bashRequest(dir, `${CMDLINE}; echo; echo "$$ $STEP"; ${OWN_TICKS}`, 1));
    expect([cold.code, warm.code]).toEqual([0, 0]);
    expect(out(dir, 0)).toContain(`-c ${CMDLINE}`);
    const [cmdline, self, ticks] = out(dir, 1).split('\n');
    expect(cmdline).toContain('__svc_p');
    expect(self).toBe(`${warm.pid} 1`);
    expect(record(join(dir, 'records'), 's1.0')).toMatchObject({ pid: warm.pid, startTicks: ticks });
  });

  test('it sees exactly what a fresh shell sees: variables, options, traps, descriptors, signals, line numbers, errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    const probe = [
      'echo "args: $0 $# $- $LINENO $_"; pwd; umask; ulimit -n; echo "shlvl=$SHLVL seconds=$SECONDS ppid=$PPID"',
      'env | LC_ALL=C sort | grep -v -e "^STEP="',
      'declare -p | grep -v -E "^declare -[-a-zA-Z]* (_|RANDOM|SRANDOM|BASHPID|EPOCHREALTIME|EPOCHSECONDS|SECONDS|STEP)="',
      'declare -f; set -o; shopt -p; trap -p; ls /proc/$$/fd; grep -E "^Sig(Ign|Blk|Cgt)" /proc/$$/status',
      'echo "line $LINENO"; echo "${BASH_EXECUTION_STRING:0:40}"',
      'missing_command_xyz || echo "rc=$?"',
      'cd /nonexistent-dir-xyz || echo "cd rc=$?"',
      'read -r line || echo "stdin: eof"; echo to-stderr >&2',
      '${UNSET_XYZ:?is unset}',
    ].join('\n');
    const [cold, warm] = await coldThenWarm(dir, probe);
    expect(cold.code).toBe(1);
    expect(warm.code).toBe(1);
    expect(out(dir, 1)).toBe(out(dir, 0));
    expect(err(dir, 1)).toBe(err(dir, 0));
    expect(out(dir, 0)).toContain('args: /bin/bash 0 ehBc 1');
    expect(err(dir, 0)).toContain('line 6: missing_command_xyz: command not found');
  });

  test('a command that does not parse fails as it does in a fresh shell (same message, exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    const [cold, warm] = await coldThenWarm(dir, 'echo before\nif then fi');
    expect([cold.code, warm.code]).toEqual([2, 2]);
    expect(err(dir, 0)).toMatch(/-c: line 2: syntax error/);
    expect(err(dir, 1)).toBe(err(dir, 0));
    expect(out(dir, 1)).toBe('before\n');
  });

  test('braces, exit codes, signals and the stop of the whole group work in a pre-started shell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    const [, braces] = await coldThenWarm(dir, 'f() { echo "in f $STEP"; }; f; { exit 7; }');
    expect(braces.code).toBe(7);
    expect(out(dir, 1)).toBe('in f 1\n');
    expect(await run(server, bashRequest(dir, 'kill -TERM $$', 2))).toMatchObject({ code: -1, signal: 15 });
    const pidFile = join(dir, 'bg.pid');
    const stopped = await run(server, bashRequest(dir, `sleep 30 & echo $! > ${pidFile}; ${CMDLINE} > ${join(dir, 'stopped.cmdline')}; wait`, 3), (pid) => {
      void (async () => { while (!existsSync(pidFile) || !existsSync(join(dir, 'stopped.cmdline'))) await new Promise((r) => setTimeout(r, 10)); process.kill(-pid, 'SIGTERM'); })();
    });
    expect(stopped).toMatchObject({ code: -1, signal: 15 });
    expect(readFileSync(join(dir, 'stopped.cmdline'), 'utf8')).toContain('__svc_p');
    const bg = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(`/proc/${bg}`) ? readFileSync(`/proc/${bg}/stat`, 'utf8').split(') ')[1]![0] : 'gone').toMatch(/Z|gone/);
  });

  test('the shells started after several requests (one kept template, each request a delta) see exactly their own environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    const ENV = `${CMDLINE} | grep -c __svc""_p || :; env | LC_ALL=C sort | grep -v -e '^_='`;
    const envs: Array<Record<string, string>> = [{ A: '1', GONE: 'x' }, { A: '2', NEW: 'y' }, { A: '3', NEW: 'y z', OTHER: "it's" }, { A: '1', GONE: 'x' }];
    for (const [n, env] of envs.entries()) expect((await run(server, bashRequest(dir, ENV, n, { env }))).code).toBe(0);
    const fresh = spawnSync(BASH!, ['-e', '-c', ENV], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, STEP: '3', A: '1', GONE: 'x' } });
    expect(out(dir, 0)).toMatch(/^0\n/);
    for (const n of [1, 2, 3]) expect(out(dir, n)).toMatch(/^1\n/);
    for (const n of [1, 2]) expect(out(dir, n)).not.toContain('GONE=');
    expect(out(dir, 2)).toContain("NEW=y z\nOTHER=it's\n");
    expect(out(dir, 3).replace(/^1\n/, '0\n')).toBe(fresh.stdout);
  });

  test('a changed special variable, shell or option, or an environment that acts at start-up, runs in a fresh shell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    await run(server, bashRequest(dir, 'true', 0, { env: { LANG: 'C' } }));
    await run(server, bashRequest(dir, `${CMDLINE}; echo; echo "$LANG"`, 1, { env: { LANG: 'C.UTF-8' } }));
    expect(out(dir, 1)).toMatch(/-c .*\nC\.UTF-8\n$/);
    await run(server, bashRequest(dir, 'true', 2, { env: { BASH_ENV: join(dir, 'rc') } }));
    writeFileSync(join(dir, 'rc'), 'echo from-bash-env\n');
    await run(server, bashRequest(dir, CMDLINE, 3, { env: { BASH_ENV: join(dir, 'rc') } }));
    expect(out(dir, 3)).toMatch(/^from-bash-env\n.*-c /);
    await run(server, forkRequest(dir, [BASH!, '-x', '-c', 'true'], { stdout: join(dir, 'out4'), stderr: join(dir, 'err4') }));
    await run(server, forkRequest(dir, [BASH!, '-x', '-c', CMDLINE], { stdout: join(dir, 'out5'), stderr: join(dir, 'err5') }));
    expect(out(dir, 5)).toContain(`-x -c ${CMDLINE}`);
    expect(err(dir, 5)).toBe("+ tr '\\0' ' '\n");
  });

  test('a working directory replaced since the shell was started is entered afresh, as by a fresh shell', async () => {
    const base = mkdtempSync(join(tmpdir(), 'svc-warm-'));
    const dir = join(base, 'work');
    spawnSync('mkdir', [dir]);
    const env = { PWD: '/somewhere', SHLVL: '4', OLDPWD: '/before' };
    await run(server, bashRequest(base, 'true', 0, { cwd: dir, env }));
    spawnSync('rm', ['-rf', dir]);
    spawnSync('mkdir', [dir]);
    writeFileSync(join(dir, 'marker'), '');
    const probe = 'pwd; ls; env | LC_ALL=C sort | grep -v ^STEP=; echo "$SHLVL $_ $BASH_EXECUTION_STRING"; declare -p OLDPWD PWD';
    const r = await run(server, bashRequest(base, probe, 1, { cwd: dir, env }));
    expect(r.code).toBe(0);
    expect(out(base, 1)).toMatch(new RegExp(`^${dir}\nmarker\n`));
    const fresh = new ForkServer(opts);
    await run(fresh, bashRequest(base, probe, 2, { cwd: dir, env }));
    fresh.close();
    expect(out(base, 1)).toBe(out(base, 2));
  });


});

eachImpl('ProcessExecutor when the fork server dies', (opts) => {
  test('a command it started is adopted: its outcome comes from the exit record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    const server = new ForkServer(opts);
    const running = new ProcessExecutor({ forkServer: server }).start(execRequest(dir, 'sleep 0.5; echo late; exit 6'));
    await runningPid(join(dir, 'records'));
    (server as unknown as { child: { kill(s: string): void } }).child.kill('SIGKILL');
    await expect(running.result).resolves.toMatchObject({ exitCode: 6, output: 'late' });
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

function execRequest(dir: string, command: string, over: Partial<ExecRequest> = {}): ExecRequest {
  return {
    exec: { node: 'step', attempt: 0, execution: 0 }, step: {} as ExecRequest['step'], commands: [command], shell: ['/bin/sh', '-e'], shellExplicit: false,
    env: { PATH: '/usr/bin:/bin' }, workingDir: dir, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: true,
    files: { stdout: join(dir, 'step.out'), stderr: join(dir, 'step.err'), recordFile: join(dir, 'records'), recordKey: 'step.0', scratchDir: join(dir, 'scratch') },
    ...over,
  } as ExecRequest;
}

/** The same executor behaviour whichever way the processes are started. */
const modes: [string, () => ProcessExecutor][] = [
  ['node spawn', () => new ProcessExecutor()],
  ...IMPLS.map(([impl, opts]) => [`fork server, ${impl}`, () => new ProcessExecutor({ forkServer: new ForkServer(opts) })] as [string, () => ProcessExecutor]),
  ['fork server without perl (fallback)', () => new ProcessExecutor({ forkServer: new ForkServer({ perl: '/nonexistent/perl' }) })],
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
    expect(executor.started(req)).toBe(false);
    const first = executor.start(req);
    await runningPid(join(dir, 'records'));
    // A restarted engine whose saved status lags behind sees it has begun, and adopts it.
    expect(executor.started(req)).toBe(true);
    const again = await executor.adopt(req);
    await expect(again!.result).resolves.toMatchObject({ exitCode: 5 });
    await expect(first.result).resolves.toMatchObject({ exitCode: 5 });
    expect(readFileSync(join(dir, 'count.txt'), 'utf8')).toBe('ran\n');
  });
});
