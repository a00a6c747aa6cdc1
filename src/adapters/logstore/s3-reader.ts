/**
 * Reads a log of the S3 log store: lists its chunks, fetches the ones not cached (a few at a time) and
 * concatenates them. Chunks are never rewritten, so a chunk read once is kept, in a cache bounded by bytes
 * (least recently used out first): tailing a growing log fetches only its new chunks.
 */
import type { ObjectEntry, S3Objects } from './s3-objects.js';

/** Chunk GETs in flight per read. */
const FETCH_CONCURRENCY = 8;

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

/** The chunks that hold the first maxBytes of a log. */
function firstChunks(chunks: ObjectEntry[], maxBytes: number): ObjectEntry[] {
  let bytes = 0;
  const out: ObjectEntry[] = [];
  for (const c of chunks) {
    if (bytes >= maxBytes) break;
    out.push(c);
    bytes += c.size;
  }
  return out;
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

export class S3LogReader {
  private readonly cache: ChunkCache;

  constructor(private readonly objects: S3Objects, cacheBytes: number) {
    this.cache = new ChunkCache(cacheBytes);
  }

  /** The log's bytes (at least its first maxBytes when given), or undefined when it has no chunk. */
  async read(logKey: string, maxBytes = Infinity): Promise<Buffer | undefined> {
    const chunks = await this.objects.list(logKey);
    if (chunks.length === 0) return undefined;
    return Buffer.concat(await mapLimit(firstChunks(chunks, maxBytes), FETCH_CONCURRENCY, (c) => this.chunk(c)));
  }

  private async chunk(entry: ObjectEntry): Promise<Buffer> {
    const cached = this.cache.get(entry);
    if (cached !== undefined) return cached;
    // Gone between the listing and the GET: the run was deleted meanwhile; it reads as nothing.
    const body = await this.objects.get(entry.key);
    if (body === undefined) return Buffer.alloc(0);
    this.cache.set(entry.key, body);
    return body;
  }
}
