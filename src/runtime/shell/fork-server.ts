/**
 * The engine's side of the fork server (fork-server.c, ADR 0008): one helper process per engine
 * process, started on first use, requests multiplexed by id. Without the helper (the build made none: no
 * C compiler) or when it cannot start, `available()` turns false and the caller spawns from Node instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

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
  private down: boolean;
  private restarts = 0;
  private seq = 0;
  private buf = '';
  private readonly inflight = new Map<string, ForkHandlers>();
  /** Helpers ended by close(). */
  private readonly closing = new Set<ChildProcess>();

  /** `native`: the helper's executable (none: unavailable, steps are spawned from Node). */
  constructor(private readonly opts: { native?: string } = {}) {
    this.down = opts.native === undefined;
  }

  available(): boolean {
    return !this.down;
  }

  spawn(req: ForkRequest, handlers: ForkHandlers): void {
    const child = this.child ?? this.launch();
    const id = (this.seq++).toString(36);
    this.inflight.set(id, handlers);
    this.refWhileBusy();
    child.stdin!.write(encodeRequest(id, req));
  }

  /** Starts the helper now (its start-up then overlaps the caller's own), when it is not running yet. */
  warm(): void {
    if (!this.child && !this.down) this.launch();
  }

  /** Ends the helper (tests; a process that exits needs nothing: the helper sees end of input). */
  close(): void {
    const child = this.child;
    if (!child) return;
    this.closing.add(child);
    child.stdin?.end();
    this.child = undefined;
    // The helper finishes and records what it started; its replies will not be read: recover from records.
    const lost = [...this.inflight.values()];
    this.inflight.clear();
    for (const h of lost) h.lost(true);
  }

  private launch(): ChildProcess {
    const child = spawn(this.opts.native!, [], { stdio: ['pipe', 'pipe', 'inherit'], cwd: '/', env: {} });
    this.child = child;
    this.ready = false;
    child.unref();
    (child.stdin as unknown as Socket).unref?.();
    child.stdin!.on('error', () => undefined);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => this.onData(d));
    child.on('error', () => this.onGone(child));
    // 'close', not 'exit': replies still buffered in its stdout are read first.
    child.on('close', () => this.onGone(child));
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

  /** The helper ended (or never started): in-flight requests are lost. One that never came up means unavailable. */
  private onGone(child: ChildProcess): void {
    if (this.closing.delete(child)) return; // ended on purpose: neither a crash nor a restart
    if (this.child !== child && this.child !== undefined) return;
    this.child = undefined;
    this.buf = '';
    const wasReady = this.ready;
    if (!wasReady || ++this.restarts > MAX_RESTARTS) this.down = true;
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
