/**
 * Terminals made by util-linux `script` (ADR 0022): `script -q -e /dev/null` opens a pseudo-terminal,
 * starts `$SHELL -i` on it as the leader of a new session, and relays between the terminal and its own
 * standard input and output, which are plain pipes here. No native module: `script` is in every Debian
 * (bsdutils is essential), the image included.
 *
 * Resizing: `script` copies its own terminal's size only when its standard input is a terminal, which it
 * is not here, so the size is set on the shell's side of the pseudo-terminal with `stty -F`: the kernel
 * then sends SIGWINCH to the terminal's foreground process group, as on any resize.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import type { TerminalProcess, TerminalSize, TerminalSpawner, TerminalSpawnOptions } from '../../core/ports/terminal.js';
import { childrenOf, killSession, signal } from './sessions.js';

const run = promisify(execFile);

/** How long the shell may take to appear on its terminal (it is a fork and an exec away). */
const SHELL_APPEARS_MS = 5000;
const POLL_MS = 10;

export class ScriptTerminalSpawner implements TerminalSpawner {
  async spawn(opts: TerminalSpawnOptions): Promise<TerminalProcess> {
    // detached: `script` leads its own process group, so a kill reaches it and nothing of the server.
    const child = spawn('script', ['-q', '-e', '/dev/null'], { cwd: opts.cwd, env: { ...opts.env, SHELL: opts.shell }, detached: true, stdio: 'pipe' });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    try {
      const shell = await shellOf(child.pid!);
      const t = new ScriptTerminal(child, shell.pid, shell.tty);
      await t.applySize(opts.size);
      return t;
    } catch (e) {
      signal(-child.pid!, 'SIGKILL');
      throw e;
    }
  }

  /** Whether `script` and `stty` can be run here (checked once at start when the terminal is on). */
  static async available(): Promise<string | undefined> {
    try {
      await run('script', ['--version']);
      await run('stty', ['--version']);
      return undefined;
    } catch (e) {
      return `the web terminal needs util-linux script and coreutils stty on PATH: ${(e as Error).message}`;
    }
  }
}

/** The shell `script` started (its only child) once it sits on the pseudo-terminal, and that terminal's device. */
async function shellOf(scriptPid: number): Promise<{ pid: number; tty: string }> {
  for (let waited = 0; waited < SHELL_APPEARS_MS; waited += POLL_MS) {
    const found = shellNow(scriptPid);
    if (found) return found;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`script (pid ${scriptPid}) started no shell on a terminal within ${SHELL_APPEARS_MS} ms`);
}

function shellNow(scriptPid: number): { pid: number; tty: string } | undefined {
  try {
    const pid = childrenOf(scriptPid)[0];
    if (!pid) return undefined;
    // Until script's child has put the terminal on its standard input, fd 0 is still the pipe.
    const tty = readlinkSync(`/proc/${pid}/fd/0`);
    return tty.startsWith('/dev/pts/') ? { pid, tty } : undefined;
  } catch {
    return undefined;
  }
}

class ScriptTerminal implements TerminalProcess {
  private exited = false;
  /** The exit code once `script` is gone and its output read to the end; undefined before. */
  private ended: { code: number | null } | undefined;
  private readonly exitListeners: Array<(code: number | null) => void> = [];
  /** Resizes apply one after the other, the last one last. */
  private sizing: Promise<void> = Promise.resolve();

  constructor(private readonly child: ChildProcessWithoutNullStreams, readonly pid: number, private readonly tty: string) {
    // A write after the shell is gone fails with EPIPE: the exit callback reports the end.
    child.stdin.on('error', () => undefined);
    child.once('exit', () => {
      this.exited = true;
      // What the shell left running (a job started with nohup, say) ends with it.
      killSession(this.pid);
    });
    // 'close', not 'exit': the last output is read before the end is reported.
    child.once('close', (code) => {
      this.ended = { code };
      for (const fn of this.exitListeners.splice(0)) fn(code);
    });
  }

  write(data: Buffer): void {
    if (!this.exited) this.child.stdin.write(data);
  }

  resize(size: TerminalSize): void {
    this.sizing = this.sizing.then(() => this.applySize(size)).catch(() => undefined);
  }

  async applySize(size: TerminalSize): Promise<void> {
    if (!this.exited) await run('stty', ['-F', this.tty, 'rows', String(size.rows), 'cols', String(size.cols)]);
  }

  onData(fn: (chunk: Buffer) => void): void {
    this.child.stdout.on('data', fn);
    this.child.stderr.on('data', fn);
  }

  /** Also after the end (a shell may exit before its caller listens): then at once, asynchronously. */
  onExit(fn: (code: number | null) => void): void {
    const ended = this.ended;
    if (ended) queueMicrotask(() => fn(ended.code));
    else this.exitListeners.push(fn);
  }

  pause(): void {
    this.child.stdout.pause();
    this.child.stderr.pause();
  }

  resume(): void {
    this.child.stdout.resume();
    this.child.stderr.resume();
  }

  kill(): void {
    killSession(this.pid);
    signal(-this.child.pid!, 'SIGKILL');
  }
}
