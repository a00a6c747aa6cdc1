/**
 * Live web terminal sessions: one WebSocket, one shell on a pseudo-terminal. The protocol
 * (docs/api.md "Web terminal"): binary frames carry keystrokes in and output out; text frames are JSON
 * control messages, `{type:"resize",cols,rows}` in, `{type:"exit",code}` and `{type:"error",code,message}`
 * out. Either side ending ends the other: the socket closing kills the shell's whole session, the shell
 * exiting closes the socket. Start and end are audited; what is typed never is.
 */
import type { WebSocket } from 'ws';
import type { Auditor } from '../../auth/audit.js';
import type { Principal } from '../../auth/principal.js';
import { roleAtLeast, type Role } from '../../core/auth/roles.js';
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
  /** The role the session's principal holds now (undefined: none); without it nobody is re-checked. */
  currentRole?: (p: Principal) => Promise<Role | undefined>;
  /** How often the owner's role is checked again (default RECHECK_MS). */
  recheckMs?: number;
  /** Sessions open at once, at most (default MAX_SESSIONS). */
  maxSessions?: number;
}

/** A shell is an admin's: a session whose owner is disabled, deleted or demoted ends within this. */
export const RECHECK_MS = 5_000;
/** Shells at once: each is a process tree on the server host. */
export const MAX_SESSIONS = 16;
/** Output queued for a slow socket before the shell's output is paused, and resumed below LOW_WATER. */
export const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 64 * 1024;

/**
 * Proxies close a WebSocket that carries nothing for a minute (nginx's default), and a client that vanished
 * (a laptop closed) sends no close: a ping this often keeps the first open and finds the second, whose
 * socket is dropped, and its shell killed, when a ping goes unanswered until the next.
 */
export const HEARTBEAT_MS = 25_000;

export interface SessionOwner {
  actor: string;
  source?: string;
  principal?: Principal;
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

  /** Whether another session may open now. */
  get full(): boolean {
    return this.live.size >= (this.d.maxSessions ?? MAX_SESSIONS);
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
    this.pipeOutput(ws, term);
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
    this.recheck(ws, term, owner);
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

  /** Output to the socket; a socket that falls behind pauses the shell's output until it catches up. */
  private pipeOutput(ws: WebSocket, term: TerminalProcess): void {
    let paused = false;
    const drained = () => {
      if (paused && ws.bufferedAmount < LOW_WATER) {
        paused = false;
        term.resume();
      }
    };
    term.onData((chunk) => {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(chunk, drained);
      if (!paused && ws.bufferedAmount > HIGH_WATER) {
        paused = true;
        term.pause();
      }
    });
  }

  /** The owner must stay an admin: disabled, deleted or demoted, the session ends. */
  private recheck(ws: WebSocket, term: TerminalProcess, owner: SessionOwner): void {
    const { principal } = owner;
    const currentRole = this.d.currentRole;
    if (!principal || !currentRole) return;
    const timer = setInterval(() => {
      void currentRole(principal).catch(() => undefined).then((role) => {
        if (role && roleAtLeast(role, 'admin')) return;
        send(ws, { type: 'error', code: 'forbidden', message: `${owner.actor} is no admin any more: the terminal session ends` });
        ws.close(1008, 'the owner is no admin any more');
        term.kill();
      });
    }, this.d.recheckMs ?? RECHECK_MS);
    ws.once('close', () => clearInterval(timer));
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
