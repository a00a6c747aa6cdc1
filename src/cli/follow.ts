/**
 * Following logs while a run runs (`svc logs --follow`, `svc start --follow`): each poll prints the lines
 * a log gained since the last one. The last line of a log is held back until the run has ended: it may
 * still be growing.
 */
import { MAX_LOG_LINES, type LogRef, type LogStore } from '../core/ports/log-store.js';

export const FOLLOW_POLL_MS = 250;

export class LogFollower {
  /** Lines printed so far, per log (by where it is). */
  private readonly printed = new Map<string, number>();

  constructor(private readonly logs: LogStore) {}

  /** The complete lines `ref` gained since the last call (all of them when `final`). */
  async next(ref: LogRef, final: boolean): Promise<string[]> {
    const key = this.logs.locate(ref);
    let done = this.printed.get(key) ?? 0;
    const out: string[] = [];
    for (;;) {
      const page = await this.logs.page(ref, { offset: done + 1, limit: MAX_LOG_LINES });
      if (!page || page.lineCount === 0) break;
      const lines = page.content.replace(/\n$/, '').split('\n').slice(0, page.lineCount);
      const take = page.hasMore || final ? lines : lines.slice(0, -1);
      out.push(...take);
      done += take.length;
      if (!page.hasMore) break;
    }
    this.printed.set(key, done);
    return out;
  }
}

export const pause = (ms = FOLLOW_POLL_MS): Promise<void> => new Promise((r) => setTimeout(r, ms));
