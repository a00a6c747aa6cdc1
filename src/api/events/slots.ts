/**
 * The cap on concurrent event streams of one server: each holds a connection, a subscription and
 * (log tails) a poll. Past the cap a new stream is refused with 503 service_unavailable and a
 * Retry-After, before anything is read or sent: the server is at capacity, the client did nothing wrong.
 */
import type { Response } from 'express';
import { DomainError } from '../../core/errors.js';

/** Seconds a refused client is told to wait. */
const RETRY_AFTER_S = 5;

export class StreamSlots {
  private open = 0;

  constructor(readonly max: number) {}

  get inUse(): number {
    return this.open;
  }

  /** Takes a slot; the returned release is idempotent. Throws 503 when every slot is taken. */
  acquire(res: Response): () => void {
    if (this.open >= this.max) {
      res.set('Retry-After', String(RETRY_AFTER_S));
      throw new DomainError('service_unavailable', `too many event streams are open on this server (at most ${this.max}); retry in ${RETRY_AFTER_S}s`, { maxStreams: this.max });
    }
    this.open++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
    };
  }
}
