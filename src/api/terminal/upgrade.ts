/**
 * The web terminal's WebSocket (GET /api/v2/terminal/session?ticket=...&cols=&rows=, an upgrade). The
 * HTTP server hands upgrades to this handler, not to express, so it checks what the guard would and
 * more, in this order: the path, terminal.enabled and authentication (terminalRefusal), the Origin (a
 * browser always sends it: a page of another site must not open a shell with a ticket it got somehow),
 * then the ticket, used up here. A refusal is an HTTP answer in the error model, and refusals after
 * the feature check are audited.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Auditor } from '../../auth/audit.js';
import type { TerminalTickets } from '../../auth/terminal-tickets.js';
import { DomainError, NotFoundError } from '../../core/errors.js';
import { hostAllowed } from '../browser/hosts.js';
import { errorBody, statusOf } from '../errors.js';
import { TERMINAL_SESSION_PATH, terminalRefusal, type TerminalGate } from './router.js';
import { terminalSize, type TerminalSessions } from './sessions.js';

export interface UpgradeDeps extends TerminalGate {
  tickets: TerminalTickets;
  sessions: TerminalSessions;
  audit: Auditor;
  /** Origins allowed besides the request's own host (the OIDC clientUrl: the UI's address behind a proxy). */
  origins: string[];
  /** Host names answered beside IP literals (as the API's: config allowedHosts). */
  allowedHosts: readonly string[];
}

const PATH = `/api/v2${TERMINAL_SESSION_PATH}`;
/** Keystrokes and control messages are small; a paste is the largest. */
const MAX_FRAME_BYTES = 1024 * 1024;
const DEFAULT_SIZE = { cols: 80, rows: 24 };

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export function terminalUpgrade(d: UpgradeDeps): UpgradeHandler {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  return (req, socket, head) => {
    // Until ws takes the socket over, a reset by the client is ours to swallow (unhandled, it would crash).
    socket.on('error', () => socket.destroy());
    const source = req.socket.remoteAddress;
    let ours = false;
    try {
      const url = new URL(req.url ?? '/', 'http://svc.invalid');
      ours = url.pathname === PATH;
      if (!ours) throw new NotFoundError(`no WebSocket at ${url.pathname}`);
      const refusal = terminalRefusal(d);
      if (refusal) throw refusal;
      if (!hostAllowed(req.headers.host, d.allowedHosts)) throw new DomainError('forbidden', 'the WebSocket\'s Host is not a name this server answers (SVC_ALLOWED_HOSTS)');
      checkOrigin(req, d.origins);
      if (d.sessions.full) throw new DomainError('too_many_requests', 'as many terminal sessions as allowed are open: close one first');
      const holder = d.tickets.redeem(url.searchParams.get('ticket') ?? '');
      if (!holder) throw new DomainError('unauthorized', 'the ticket is missing, used or expired: get one with POST /api/v2/terminal/tickets');
      const size = terminalSize(Number(url.searchParams.get('cols') ?? DEFAULT_SIZE.cols), Number(url.searchParams.get('rows') ?? DEFAULT_SIZE.rows)) ?? DEFAULT_SIZE;
      wss.handleUpgrade(req, socket, head, (ws) => void d.sessions.open(ws, { actor: holder.actor, ...(source ? { source } : {}), ...(holder.principal ? { principal: holder.principal } : {}) }, size));
    } catch (e) {
      const err = e instanceof DomainError ? e : new DomainError('bad_request', String(e));
      if (ours && err.code !== 'not_found') {
        void d.audit.record({ actor: 'anonymous', action: 'terminal.start', target: 'terminal', ...(source ? { source } : {}), outcome: 'failure', details: { status: statusOf(err), reason: err.message } });
      }
      refuse(socket, err);
    }
  };
}

function checkOrigin(req: IncomingMessage, allowed: string[]): void {
  const origin = req.headers.origin;
  let host: string | undefined;
  try { host = origin ? new URL(origin).host : undefined; } catch { host = undefined; }
  if (origin && (host === req.headers.host || allowed.includes(origin))) return;
  throw new DomainError('forbidden', `the WebSocket's Origin (${origin ?? 'none'}) is not this server's: the terminal opens only from its own pages`);
}

/** An HTTP answer on the raw socket, in the error model, and the connection closed. */
function refuse(socket: Duplex, err: DomainError): void {
  const status = statusOf(err);
  const body = JSON.stringify(errorBody(err.code, err.message, err.details));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
