/**
 * The engine's side of the fork server (fork-server-script.ts, ADR 0004): one helper process per
 * engine process, started on first use, requests multiplexed by id. The helper is the native one
 * (fork-server.c, ADR 0007) when the build made it, else the Perl program; when neither can start,
 * `available()` turns false and the caller spawns from Node instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { writeSync } from 'node:fs';
import { FORK_SERVER_SCRIPT, SPECIAL_NAMES, WARM_BOOT } from './fork-server-script.js';

export interface ForkRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** Log files, opened for append by the child (equal paths = merged). */
  stdout: string;
  stderr: string;
  /** The exec records file the child appends its `<key> {pid, startTicks, startedAt}` line to before exec ('' = none). */
  recordFile: string;
  recordKey: string;
  /** Which command of the step this is, for its process line. */
  commandIndex: number;
}

export interface ForkHandlers {
  spawned(pid: number): void;
  exited(code: number, signal: number): void;
  /** Not started: the server could not fork. */
  failed(message: string): void;
  /**
   * The server died while this request was in flight: the outcome must be found another way. When
   * the server had never come up, the command was certainly not started.
   */
  lost(mayHaveStarted: boolean): void;
}

/** Restarts after a crash of a server that had worked; one that never became ready is not retried. */
const MAX_RESTARTS = 3;

export class ForkServer {
  private child: ChildProcess | undefined;
  private ready = false;
  private down = false;
  /** The native helper never came up: the Perl one from then on. */
  private nativeFailed = false;
  private childIsNative = false;
  private restarts = 0;
  private seq = 0;
  private buf = '';
  private readonly inflight = new Map<string, ForkHandlers>();

  /**
   * `native`: the native helper's executable (none: Perl only); `perl`: the interpreter (looked up on
   * `path`, the engine's PATH).
   */
  constructor(private readonly opts: { native?: string; perl?: string; path?: string } = {}) {}

  available(): boolean {
    return !this.down;
  }

  spawn(req: ForkRequest, handlers: ForkHandlers): void {
    const child = this.child ?? this.launch();
    const id = (this.seq++).toString(36);
    this.inflight.set(id, handlers);
    this.refWhileBusy();
    send(child, encodeRequest(id, req));
  }

  /** Starts the helper now (its start-up then overlaps the caller's own), when it is not running yet. */
  warm(): void {
    if (!this.child && !this.down) this.launch();
  }

  /** Ends the helper (tests; a process that exits needs nothing: the helper sees end of input). */
  close(): void {
    this.child?.stdin?.end();
    this.child = undefined;
  }

  private launch(): ChildProcess {
    const native = this.opts.native !== undefined && !this.nativeFailed ? this.opts.native : undefined;
    const [file, args] = native ? [native, [WARM_BOOT, SPECIAL_NAMES]] : [this.opts.perl ?? 'perl', ['-e', FORK_SERVER_SCRIPT, WARM_BOOT, SPECIAL_NAMES]];
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'inherit'], cwd: '/', env: { PATH: this.opts.path ?? '/usr/bin:/bin' } });
    this.child = child;
    this.childIsNative = native !== undefined;
    this.ready = false;
    child.unref();
    (child.stdin as unknown as Socket).unref?.();
    child.stdin!.on('error', () => undefined);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => this.onData(d));
    child.on('error', () => this.onGone(child));
    child.on('exit', () => this.onGone(child));
    this.refWhileBusy();
    return child;
  }

  private onData(d: string): void {
    this.buf += d;
    for (let i = this.buf.indexOf('\n'); i >= 0; i = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    const [kind, id = '', a = '', b = ''] = line.split(' ');
    if (kind === 'R') { this.ready = true; return; }
    const h = this.inflight.get(id);
    if (!h) return;
    if (kind === 'S') { h.spawned(Number(a)); return; }
    this.inflight.delete(id);
    this.refWhileBusy();
    if (kind === 'X') h.exited(Number(a), Number(b));
    else h.failed(line.slice(line.indexOf(id) + id.length + 1));
  }

  /**
   * The helper ended (or never started): in-flight requests are lost. A native one that never came up
   * gives way to the Perl one; a Perl one that never did means unavailable.
   */
  private onGone(child: ChildProcess): void {
    if (this.child !== child && this.child !== undefined) return;
    this.child = undefined;
    this.buf = '';
    const wasReady = this.ready;
    if (!wasReady && this.childIsNative) this.nativeFailed = true;
    else if (!wasReady || ++this.restarts > MAX_RESTARTS) this.down = true;
    const lost = [...this.inflight.values()];
    this.inflight.clear();
    for (const h of lost) h.lost(wasReady);
  }

  /** While requests are in flight the helper's output keeps the process alive; idle, it does not. */
  private refWhileBusy(): void {
    const out = this.child?.stdout as unknown as Socket | undefined;
    if (this.inflight.size > 0) out?.ref?.();
    else out?.unref?.();
  }
}

/**
 * Writes a frame straight to the pipe when nothing is queued before it: one write(2) instead of a
 * pass through the stream machinery (measured: a tenth of the cost). Whatever the pipe does not take
 * at once (full, or an error the stream reports itself) goes through the stream, in order.
 */
function send(child: ChildProcess, frame: Buffer): void {
  const stdin = child.stdin!;
  const fd = (stdin as unknown as { _handle?: { fd?: number } })._handle?.fd;
  let rest = frame;
  if (stdin.writableLength === 0 && typeof fd === 'number' && fd >= 0) {
    try {
      rest = frame.subarray(writeSync(fd, frame));
    } catch { /* EAGAIN (pipe full), EPIPE (helper gone): the stream handles both */ }
  }
  if (rest.length > 0) stdin.write(rest);
}

/** One frame: the total length, then each field as its byte length and bytes (one allocation). */
function encodeRequest(id: string, r: ForkRequest): Buffer {
  const fields = [id, r.cwd, r.stdout, r.stderr, r.recordFile, r.recordKey, String(r.commandIndex), String(r.argv.length), ...r.argv];
  for (const k in r.env) fields.push(`${k}=${r.env[k]}`);
  let size = 4;
  for (const f of fields) size += 4 + Buffer.byteLength(f);
  const buf = Buffer.allocUnsafe(size);
  buf.writeUInt32BE(size - 4, 0);
  let at = 4;
  for (const f of fields) {
    const n = buf.write(f, at + 4, 'utf8');
    buf.writeUInt32BE(n, at);
    at += 4 + n;
  }
  return buf;
}
