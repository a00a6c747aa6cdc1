/**
 * Tickets that open a web terminal (docs/api.md "Web terminal"). A browser cannot put an Authorization
 * header on a WebSocket, and a bearer token in a URL ends up in logs and history: so an admin's
 * authenticated POST gets a ticket, short-lived and good once, and the WebSocket request carries it.
 * Only the ticket's SHA-256 is kept; a presented ticket is compared with every live one in constant time.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256 } from './digest.js';
import type { Principal } from './principal.js';

/** Who a ticket was issued to: what the session's audit lines name. */
export interface TicketHolder {
  actor: string;
  /** Who asked (none with auth off): the session ends when it is no admin any more. */
  principal?: Principal;
}

export interface IssuedTicket {
  ticket: string;
  expiresAt: string;
}

/** A ticket is used by the page that asked for it, at once: half a minute is plenty. */
export const TICKET_TTL_MS = 30_000;
/** Live tickets kept at most (the oldest go first): the book cannot grow without bound. */
const MAX_LIVE = 100;

interface Entry { hash: Buffer; holder: TicketHolder; expiresAt: number }

export class TerminalTickets {
  private entries: Entry[] = [];

  constructor(private readonly now: () => number = Date.now, private readonly ttlMs = TICKET_TTL_MS) {}

  issue(holder: TicketHolder): IssuedTicket {
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + this.ttlMs;
    this.entries = [...this.live(), { hash: sha256(ticket), holder, expiresAt }].slice(-MAX_LIVE);
    return { ticket, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The holder of a live ticket, which is used up; undefined for anything else. */
  redeem(ticket: string): TicketHolder | undefined {
    const digest = sha256(ticket);
    const live = this.live();
    // Every live entry is compared, so the time taken does not tell which one matched.
    let found: Entry | undefined;
    for (const e of live) if (timingSafeEqual(e.hash, digest)) found = e;
    this.entries = live.filter((e) => e !== found);
    return found?.holder;
  }

  private live(): Entry[] {
    const now = this.now();
    return this.entries.filter((e) => e.expiresAt > now);
  }
}
