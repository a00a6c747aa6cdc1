/**
 * A small collection of JSON records in one file (`<dataDir>/auth/<name>.json`), loaded once and kept in
 * memory (users and API keys are few), written atomically under one mutex. This process is the only
 * writer (the server), so the cache never goes stale. The directory is created 0700: hashes are not
 * secrets, but nobody else needs to read them.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readJson, writeFileAtomic } from '../fs/atomic.js';
import { KeyedMutex } from '../store/local/mutex.js';

export class JsonRecords<T extends { id: string }> {
  private cache?: T[];
  private loading?: Promise<T[]>;
  private readonly mutex = new KeyedMutex();

  /** `valid` drops hand-edited or torn records rather than trusting them. */
  constructor(private readonly path: string, private readonly valid: (v: unknown) => v is T) {}

  async all(): Promise<T[]> {
    return (await this.load()).map((r) => ({ ...r }));
  }

  /** A copy of the first record that matches (lookups on every request copy one record, not all). */
  async find(match: (r: T) => boolean): Promise<T | undefined> {
    const hit = (await this.load()).find(match);
    return hit && { ...hit };
  }

  size(): number {
    return this.cache?.length ?? 0;
  }

  /** Replaces the collection with what `change` returns (it may throw to refuse); returns its result. */
  async update<R>(change: (all: T[]) => { next: T[]; result: R }): Promise<R> {
    await this.load();
    return this.mutex.run('all', async () => {
      const { next, result } = change((this.cache as T[]).map((r) => ({ ...r })));
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.path, `${JSON.stringify(next, null, 2)}\n`);
      this.cache = next.map((r) => ({ ...r }));
      return result;
    });
  }

  private load(): Promise<T[]> {
    if (this.cache) return Promise.resolve(this.cache);
    this.loading ??= readJson<unknown>(this.path).then((data) => {
      this.cache = Array.isArray(data) ? data.filter(this.valid) : [];
      return this.cache;
    }, (e: unknown) => {
      // A failed read (EMFILE, a torn file) is not cached: the next call tries again.
      this.loading = undefined;
      throw e;
    });
    return this.loading;
  }
}

/** A type guard from a field -> typeof table; optional fields may be absent. */
export function shapeCheck<T>(required: Record<string, string>, optional: Record<string, string> = {}): (v: unknown) => v is T {
  return (v: unknown): v is T => {
    if (typeof v !== 'object' || v === null) return false;
    const o = v as Record<string, unknown>;
    return Object.entries(required).every(([k, t]) => typeof o[k] === t)
      && Object.entries(optional).every(([k, t]) => o[k] === undefined || typeof o[k] === t);
  };
}
