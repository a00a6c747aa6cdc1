/**
 * Reads a log of the S3 log store: lists its chunks and reads them as one run of bytes by position (a
 * ByteSource for pager.ts), so a page costs the bytes it needs, not the log. Chunks are never rewritten,
 * so a small chunk read once is kept, in a cache bounded by bytes (least recently used out first):
 * tailing a growing log fetches only its new chunks. A chunk over WHOLE_CHUNK_BYTES (one huge append) is
 * read by ranges of at least RANGE_BYTES, never held whole.
 */
import type { ByteSource } from './pager.js';
import type { ObjectEntry, S3Objects } from './s3-objects.js';

const WHOLE_CHUNK_BYTES = 4 * 1024 * 1024;
/** Chunk GETs in flight per read. */
const FETCH_CONCURRENCY = 8;
const RANGE_BYTES = 1024 * 1024;

class ChunkCache {
  private readonly chunks = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** The cached body, when its size is the listed one (a chunk is immutable; this only guards the cache). */
  get(entry: ObjectEntry): Buffer | undefined {
    const body = this.chunks.get(entry.key);
    if (body === undefined || body.length !== entry.size) return undefined;
    this.chunks.delete(entry.key); // most recently used last: the Map's order is the eviction order
    this.chunks.set(entry.key, body);
    return body;
  }

  set(key: string, body: Buffer): void {
    if (body.length > this.maxBytes) return;
    const old = this.chunks.get(key);
    if (old !== undefined) this.bytes -= old.length;
    this.chunks.delete(key);
    this.chunks.set(key, body);
    this.bytes += body.length;
    for (const [k, b] of this.chunks) {
      if (this.bytes <= this.maxBytes) break;
      this.chunks.delete(k);
      this.bytes -= b.length;
    }
  }
}

/** fn over items, at most `limit` at a time; results in the items' order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The log's chunks laid end to end: bytes by position. */
class ChunkSource implements ByteSource {
  readonly size: number;
  private readonly starts: number[] = [];
  /** The last range read of a big chunk: a pager reads forward a little at a time. */
  private window: { key: string; start: number; body: Buffer } | undefined;

  constructor(private readonly reader: S3LogReader, private readonly chunks: ObjectEntry[]) {
    let at = 0;
    for (const c of chunks) {
      this.starts.push(at);
      at += c.size;
    }
    this.size = at;
  }

  async read(pos: number, len: number): Promise<Buffer> {
    const end = Math.min(this.size, pos + len);
    const spans: { c: ObjectEntry; from: number; to: number }[] = [];
    for (let i = this.chunkAt(pos); i < this.chunks.length && (this.starts[i] as number) < end; i++) {
      const start = this.starts[i] as number;
      const c = this.chunks[i] as ObjectEntry;
      spans.push({ c, from: Math.max(pos, start) - start, to: Math.min(c.size, end - start) });
    }
    const parts = await mapLimit(spans, FETCH_CONCURRENCY, async (sp) => ({ buf: await this.part(sp.c, sp.from, sp.to), want: sp.to - sp.from }));
    // A chunk gone between the listing and the GET (the run was deleted meanwhile) ends the bytes there.
    const short = parts.findIndex((p) => p.buf.length < p.want);
    const kept = (short === -1 ? parts : parts.slice(0, short + 1)).map((p) => p.buf);
    return kept.length === 1 ? (kept[0] as Buffer) : Buffer.concat(kept);
  }

  private chunkAt(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Bytes [from, to) of a chunk. */
  private async part(c: ObjectEntry, from: number, to: number): Promise<Buffer> {
    if (c.size <= WHOLE_CHUNK_BYTES) return (await this.reader.chunk(c)).subarray(from, to);
    const w = this.window;
    if (w?.key === c.key && w.start <= from && to <= w.start + w.body.length) return w.body.subarray(from - w.start, to - w.start);
    const body = await this.reader.range(c, from, Math.min(c.size, Math.max(to, from + RANGE_BYTES)));
    this.window = { key: c.key, start: from, body };
    return body.subarray(0, to - from);
  }
}

export class S3LogReader {
  private readonly cache: ChunkCache;

  constructor(private readonly objects: S3Objects, cacheBytes: number) {
    this.cache = new ChunkCache(cacheBytes);
  }

  /** The log's bytes by position, or undefined when it has no chunk. */
  async source(logKey: string): Promise<ByteSource | undefined> {
    const chunks = await this.objects.list(logKey);
    return chunks.length === 0 ? undefined : new ChunkSource(this, chunks);
  }

  /** A small chunk, whole (cached); empty when it is gone. */
  async chunk(entry: ObjectEntry): Promise<Buffer> {
    const cached = this.cache.get(entry);
    if (cached !== undefined) return cached;
    const body = await this.objects.get(entry.key);
    if (body === undefined) return Buffer.alloc(0);
    this.cache.set(entry.key, body);
    return body;
  }

  /** Bytes [from, to) of a big chunk, not cached; empty when it is gone. */
  async range(entry: ObjectEntry, from: number, to: number): Promise<Buffer> {
    return (await this.objects.get(entry.key, { start: from, end: to })) ?? Buffer.alloc(0);
  }
}
