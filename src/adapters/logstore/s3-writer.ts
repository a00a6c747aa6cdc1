/**
 * The write side of the S3 log store. S3 has no append: the appends to a log are buffered in memory and
 * written together as one new chunk object, when the first of them has waited a flush interval, when the
 * buffer passes a size, or when flushed explicitly (a read of the log in this process, flush, close).
 * So a log costs one object per interval it was written in, not one per append; and the interval grows
 * with the chunks this writer already wrote to the log (from flushMs to maxFlushMs), so a step that
 * prints all day adds a few objects a minute, while the first lines of a step show up at once.
 *
 * Chunk keys sort in write order (s3-keys.ts chunkName): the writes of one log run one at a time, and
 * stamps only grow, within this writer and past the newest chunk another process wrote to the log
 * before (a step's retry in a new Pod, on a node whose clock is behind, still appends after it).
 */
import { chunkName, chunkStamp } from './s3-keys.js';
import type { S3Objects } from './s3-objects.js';

export interface ChunkWriterOptions {
  flushMs: number;
  maxFlushMs: number;
  flushBytes: number;
  now: () => number;
  /** Ends every chunk name: writers never share one. */
  writerId: string;
  /** A write failed that no flush() awaited; its text is kept and tried again after an interval. */
  onError: (e: unknown) => void;
}

interface Pending {
  parts: string[];
  bytes: number;
  timer: NodeJS.Timeout | undefined;
  /** The last write queued: writes of one log run one after the other. */
  tail: Promise<void>;
  queued: number;
}

/** What this writer knows of a log: the stamp of its newest chunk, and how many chunks this writer wrote. */
interface Known {
  stamp: number;
  chunks: number;
}

/** Logs remembered (least recently written out first): the operator writes the run logs of every run. */
const MAX_KNOWN = 10_000;
const CONTENT_TYPE = 'text/plain; charset=utf-8';

export class S3ChunkWriter {
  private readonly pending = new Map<string, Pending>();
  private readonly known = new Map<string, Known>();
  private lastStamp = 0;
  private seq = 0;
  private closed = false;

  constructor(private readonly objects: S3Objects, private readonly opts: ChunkWriterOptions) {}

  /**
   * Buffers the text. Resolves at once, or once the log's buffer is written when it passed flushBytes (a
   * writer faster than the bucket waits for it). Rejects only after close: a failed write keeps the
   * text and goes to onError, so a caller never appends the same text twice.
   */
  async append(logKey: string, text: string): Promise<void> {
    if (this.closed) throw new Error('S3LogStore: append after close');
    let p = this.pending.get(logKey);
    if (p === undefined) {
      p = { parts: [], bytes: 0, timer: undefined, tail: Promise.resolve(), queued: 0 };
      this.pending.set(logKey, p);
    }
    p.parts.push(text);
    p.bytes += Buffer.byteLength(text);
    if (p.bytes >= this.opts.flushBytes) await this.flush(logKey).catch(this.opts.onError);
    else this.arm(logKey, p);
  }

  /** Writes what is buffered for the log, after any write of it under way. */
  flush(logKey: string): Promise<void> {
    const p = this.pending.get(logKey);
    if (p === undefined) return Promise.resolve();
    clearTimeout(p.timer);
    p.timer = undefined;
    p.queued++;
    const write = p.tail.then(() => this.write(logKey, p));
    p.tail = write.catch(() => undefined);
    return write;
  }

  async flushAll(): Promise<void> {
    await Promise.all([...this.pending.keys()].map((k) => this.flush(k)));
  }

  /** Flushes everything; later appends throw. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flushAll();
  }

  private arm(logKey: string, p: Pending): void {
    if (p.timer !== undefined || this.closed) return;
    const chunks = this.known.get(logKey)?.chunks ?? 0;
    const delay = Math.min(this.opts.maxFlushMs, this.opts.flushMs * (1 + chunks));
    p.timer = setTimeout(() => {
      p.timer = undefined;
      this.flush(logKey).catch(this.opts.onError);
    }, delay);
    // Timers keep no process alive: a writer calls close() before it exits.
    p.timer.unref();
  }

  private async write(logKey: string, p: Pending): Promise<void> {
    const parts = p.parts;
    p.parts = [];
    p.bytes = 0;
    try {
      if (parts.length > 0) await this.writeChunk(logKey, parts.join(''));
    } catch (e) {
      // Kept, in order, ahead of what was appended meanwhile, and tried again after an interval.
      p.parts = [...parts, ...p.parts];
      p.bytes = p.parts.reduce((n, t) => n + Buffer.byteLength(t), 0);
      this.arm(logKey, p);
      throw e;
    } finally {
      p.queued--;
      if (p.queued === 0 && p.parts.length === 0 && p.timer === undefined && this.pending.get(logKey) === p) this.pending.delete(logKey);
    }
  }

  private async writeChunk(logKey: string, text: string): Promise<void> {
    const known = this.known.get(logKey) ?? (await this.probe(logKey));
    // An empty append creates a log; to a log that exists it changes nothing.
    if (text === '' && known !== undefined) return;
    const stamp = Math.max(this.opts.now(), this.lastStamp, (known?.stamp ?? 0) + 1);
    this.lastStamp = stamp;
    await this.objects.put(`${logKey}${chunkName(stamp, ++this.seq, this.opts.writerId)}`, text, CONTENT_TYPE);
    this.remember(logKey, { stamp, chunks: (known?.chunks ?? 0) + 1 });
  }

  /** The newest chunk of a log this writer does not know yet (another process wrote it, or nobody). */
  private async probe(logKey: string): Promise<Known | undefined> {
    const last = (await this.objects.list(logKey)).at(-1);
    if (last === undefined) return undefined;
    const known = { stamp: chunkStamp(last.key), chunks: 0 };
    this.remember(logKey, known);
    return known;
  }

  private remember(logKey: string, known: Known): void {
    this.known.delete(logKey);
    this.known.set(logKey, known);
    if (this.known.size > MAX_KNOWN) this.known.delete(this.known.keys().next().value as string);
  }
}
