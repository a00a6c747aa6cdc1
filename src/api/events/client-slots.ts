/**
 * The cap on concurrent event streams of one client, beside the server-wide cap (slots.ts): without
 * it one client holding every server slot locks every other client out of live updates. A client is
 * the authenticated principal (user, API key, static credential) or, with authentication off, the
 * peer address. Past the cap a new stream is refused with 429 too_many_requests before it opens: the
 * client has to end one of its streams first. A slot is held until the response closes, for whatever
 * reason (the client left, the stream ended, an error answered).
 */
import { Router, type Request, type Response } from 'express';
import { DomainError } from '../../core/errors.js';
import { principalOf } from '../auth/context.js';

/** Streams one client may hold open at once (a UI tab holds up to three). */
export const MAX_STREAMS_PER_CLIENT = 16;
const RETRY_AFTER_S = 5;

function clientOf(req: Request, res: Response): string {
  const p = principalOf(res);
  return p ? `${p.kind}:${p.id}` : `address:${req.socket.remoteAddress ?? 'unknown'}`;
}

export class ClientStreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly max = MAX_STREAMS_PER_CLIENT) {}

  /** Streams the client holds now. */
  held(client: string): number {
    return this.open.get(client) ?? 0;
  }

  /** Takes a slot of `client`; the returned release is idempotent. Throws 429 when the client holds `max`. */
  acquire(client: string): () => void {
    const n = this.held(client);
    if (n >= this.max) {
      throw new DomainError('too_many_requests', `this client already has ${n} event streams open (at most ${this.max} at once): close one first`, { maxStreamsPerClient: this.max });
    }
    this.open.set(client, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.held(client) - 1;
      if (left > 0) this.open.set(client, left);
      else this.open.delete(client);
    };
  }
}

/** Mounted before the event routers: every `/events/...` request holds one of its client's slots while it lasts. */
export function clientSlotsRouter(slots: ClientStreamSlots): Router {
  const r = Router();
  r.use('/events', (req, res, next) => {
    try {
      const release = slots.acquire(clientOf(req, res));
      res.once('close', release);
      next();
    } catch (e) {
      res.set('Retry-After', String(RETRY_AFTER_S));
      next(e);
    }
  });
  return r;
}
