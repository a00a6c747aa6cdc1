/**
 * The web terminal's HTTP routes (docs/api.md "Web terminal"): whether it can be opened, tickets for its
 * WebSocket, and a plain answer to a GET of the WebSocket's path that is not an upgrade. The terminal
 * itself (the WebSocket) is `upgrade.ts`.
 */
import { Router } from 'express';
import { BadRequestError, DomainError, NotFoundError } from '../../core/errors.js';
import { actorOf } from '../../auth/principal.js';
import type { TerminalTickets } from '../../auth/terminal-tickets.js';
import { principalOf } from '../auth/context.js';

export interface TerminalGate {
  /** terminal.enabled (SVC_TERMINAL_ENABLED). */
  enabled: boolean;
  /**
   * Whether requests are authenticated (builtin mode, or a static credential): without it nobody can be
   * known to be an admin, and the terminal opens for no one, whatever terminal.enabled says.
   */
  enforcing: boolean;
}

export const TERMINAL_SESSION_PATH = '/terminal/session';

/** Why the terminal cannot be opened, as the error the API answers; undefined when it can. */
export function terminalRefusal(g: TerminalGate): DomainError | undefined {
  if (!g.enabled) return new NotFoundError('the web terminal is off: it is turned on with SVC_TERMINAL_ENABLED=true (terminal.enabled)');
  if (!g.enforcing) {
    return new DomainError('forbidden', 'the web terminal opens for admins only, and with authentication off nobody is known to be one: set SVC_AUTH_MODE=builtin or a static token');
  }
  return undefined;
}

export function terminalRouter(d: TerminalGate & { tickets: TerminalTickets }): Router {
  const r = Router();

  r.get('/terminal', (_req, res) => {
    const refusal = terminalRefusal(d);
    res.json({ enabled: refusal === undefined, ...(refusal ? { reason: refusal.message } : {}) });
  });

  r.post('/terminal/tickets', (_req, res) => {
    const refusal = terminalRefusal(d);
    if (refusal) throw refusal;
    const p = principalOf(res);
    res.status(201).json(d.tickets.issue({ actor: actorOf(p), ...(p ? { principal: p } : {}) }));
  });

  r.get(TERMINAL_SESSION_PATH, () => {
    const refusal = terminalRefusal(d);
    if (refusal) throw refusal;
    throw new BadRequestError(`${TERMINAL_SESSION_PATH} is a WebSocket: open it with a ticket from POST /terminal/tickets (?ticket=...)`);
  });

  return r;
}
