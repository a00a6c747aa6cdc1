/**
 * The part every local RecordCollection shares: records loaded once and kept in memory (handed out as
 * copies), changes one at a time under a mutex, the store's own writer (`persist`) in between. This
 * process is the only writer (the server), so the cache never goes stale.
 */
import type { RecordCollection } from '../../core/ports/records.js';
import { KeyedMutex } from '../store/local/mutex.js';

/** Told of a stored entry the collection could not read and keeps aside (a server logs it as a warning). */
export type ReportProblem = (message: string, fields: Record<string, unknown>) => void;

export abstract class CachedCollection<T extends object> implements RecordCollection<T> {
  private cache?: T[];
  private loading?: Promise<T[]>;
  private readonly mutex = new KeyedMutex();

  /** The stored records (valid ones only). */
  protected abstract load(): Promise<T[]>;
  /** Stores `next` in place of `before`, atomically per file. */
  protected abstract persist(before: T[], next: T[]): Promise<void>;

  async all(): Promise<T[]> {
    return (await this.loaded()).map((r) => structuredClone(r));
  }

  size(): number {
    return this.cache?.length ?? 0;
  }

  async update<R>(change: (all: T[]) => { next: T[]; result: R }): Promise<R> {
    await this.loaded();
    return this.mutex.run('all', async () => {
      const before = await this.all();
      const { next, result } = change(await this.all());
      await this.persist(before, next);
      this.cache = next.map((r) => structuredClone(r));
      return result;
    });
  }

  private loaded(): Promise<T[]> {
    if (this.cache) return Promise.resolve(this.cache);
    this.loading ??= this.load().then((records) => {
      this.cache ??= records;
      return this.cache;
    }, (e: unknown) => {
      // A failed read (EMFILE, a torn file) is not cached: the next call tries again.
      this.loading = undefined;
      throw e;
    });
    return this.loading;
  }
}
