/**
 * Live web terminal sessions: one WebSocket, one shell on a pseudo-terminal. The protocol
 * (docs/api.md "Web terminal"): binary frames carry keystrokes in and output out; text frames are JSON
 * control messages, `{type:"resize",cols,rows}` in, `{type:"exit",code}` and `{type:"error",code,message}`
 * out. Either side ending ends the other: the socket closing kills the shell's whole session, the shell
 * exiting closes the socket. Start and end are audited; what is typed never is.
 */
import type { WebSocket } from 'ws';
import type { Auditor } from '../../auth/audit.js';
import type { TerminalProcess, TerminalSize, TerminalSpawner } from '../../core/ports/terminal.js';

export interface SessionDeps {
  spawner: TerminalSpawner;
  audit: Auditor;
  shell: string;
  cwd: string;
  /** The shell's environment: the service's, filtered as for steps (SPEC 2.7), plus TERM. */
  env: Record<string, string>;
  warn(msg: string, f?: Record<string, unknown>): void;
  now?: () => number;
  /** How often an open socket is pinged (default HEARTBEAT_MS). */
  heartbeatMs?: number;
}

/**
 * Proxies close a WebSocket that carries nothing for a minute (nginx's default), and a client that vanished
 * (a laptop closed) sends no close: a ping this often keeps the first open and finds the second, whose
 * socket is dropped, and its shell killed, when a ping goes unanswered until the next.
 */
export const HEARTBEAT_MS = 25_000;

export interface SessionOwner {
  actor: string;
  source?: string;
}

/** Sizes a terminal emulator may ask for: anything else is a mistake, not a terminal. */
export const MAX_TERMINAL_SIDE = 1000;

/** A `{cols, rows}` of whole numbers from 1 to MAX_TERMINAL_SIDE, else undefined. */
export function terminalSize(cols: unknown, rows: unknown): TerminalSize | undefined {
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_TERMINAL_SIDE;
  return ok(cols) && ok(rows) ? { cols, rows } : undefined;
}

export class TerminalSessions {
  private readonly live = new Map<WebSocket, TerminalProcess>();
  private readonly now: () => number;

  constructor(private readonly d: SessionDeps) {
    this.now = d.now ?? Date.now;
  }

  get count(): number {
    return this.live.size;
  }

  async open(ws: WebSocket, owner: SessionOwner, size: TerminalSize): Promise<void> {
    const started = this.now();
    // What the browser sends while the shell starts waits for it, in order.
    const early: Array<[Buffer, boolean]> = [];
    let take: (data: Buffer, isBinary: boolean) => void = (data, isBinary) => early.push([data, isBinary]);
    ws.on('message', (data, isBinary) => take(Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]), isBinary));
    const term = await this.spawn(ws, owner, size);
    if (!term) return;
    this.live.set(ws, term);
    // The end is written after the start, however quickly the shell exits.
    const startAudited = this.audit(owner, 'terminal.start', 'success', { pid: term.pid, shell: this.d.shell, cwd: this.d.cwd });
    term.onData((chunk) => { if (ws.readyState === ws.OPEN) ws.send(chunk); });
    term.onExit((code) => {
      this.live.delete(ws);
      send(ws, { type: 'exit', code });
      ws.close(1000, 'the shell exited');
      void startAudited.then(() => this.audit(owner, 'terminal.end', 'success', { pid: term.pid, durationMs: this.now() - started, ...(code === null ? { killed: true } : { exitCode: code }) }));
    });
    take = (data, isBinary) => (isBinary ? term.write(data) : this.control(ws, term, String(data)));
    for (const [data, isBinary] of early.splice(0)) take(data, isBinary);
    ws.on('close', () => term.kill());
    this.heartbeat(ws);
    // The socket may have closed while the shell started: no 'close' event comes then.
    if (ws.readyState !== ws.OPEN) term.kill();
  }

  private async spawn(ws: WebSocket, owner: SessionOwner, size: TerminalSize): Promise<TerminalProcess | undefined> {
    try {
      return await this.d.spawner.spawn({ shell: this.d.shell, cwd: this.d.cwd, env: this.d.env, size });
    } catch (e) {
      this.d.warn('Failed to start a web terminal', { actor: owner.actor, error: String(e) });
      await this.audit(owner, 'terminal.start', 'failure', { reason: 'the shell did not start' });
      ws.close(1011, 'the shell did not start');
      return undefined;
    }
  }

  /** Ends every session (server shutdown): shells killed, sockets closed as "going away". */
  closeAll(): void {
    for (const [ws, term] of this.live) {
      term.kill();
      ws.close(1001, 'the server is stopping');
    }
  }

  private heartbeat(ws: WebSocket): void {
    let answered = true;
    ws.on('pong', () => { answered = true; });
    const timer = setInterval(() => {
      if (!answered) return void ws.terminate();
      answered = false;
      ws.ping();
    }, this.d.heartbeatMs ?? HEARTBEAT_MS);
    ws.once('close', () => clearInterval(timer));
  }

  private control(ws: WebSocket, term: TerminalProcess, text: string): void {
    let msg: { type?: unknown; cols?: unknown; rows?: unknown } | undefined;
    try { msg = JSON.parse(text) as typeof msg; } catch { msg = undefined; }
    const size = msg?.type === 'resize' ? terminalSize(msg.cols, msg.rows) : undefined;
    if (size) return term.resize(size);
    send(ws, { type: 'error', code: 'bad_request', message: `a text frame is a control message, {"type":"resize","cols":1-${MAX_TERMINAL_SIDE},"rows":1-${MAX_TERMINAL_SIDE}}; keystrokes go in binary frames` });
  }

  private audit(owner: SessionOwner, action: string, outcome: 'success' | 'failure', details: Record<string, string | number | boolean>): Promise<void> {
    return this.d.audit.record({ actor: owner.actor, action, target: 'terminal', ...(owner.source ? { source: owner.source } : {}), outcome, details });
  }
}

function send(ws: WebSocket, msg: Record<string, unknown>): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
}
