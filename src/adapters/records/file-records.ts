/**
 * A RecordCollection in one JSON file (`<dataDir>/auth/<name>.json`), loaded once and kept in memory
 * (users and API keys are few), written atomically under one mutex. This process is the only writer
 * (the server), so the cache never goes stale. The directory is created 0700: hashes are not secrets,
 * but nobody else needs to read them.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RecordCollection } from '../../core/ports/records.js';
import { readJson, writeFileAtomic } from '../fs/atomic.js';
import { KeyedMutex } from '../store/local/mutex.js';
import { CachedRecords } from './cached.js';

export class FileRecords<T extends object> implements RecordCollection<T> {
  private readonly cached: CachedRecords<T>;
  private readonly mutex = new KeyedMutex();

  /** `valid` drops hand-edited or torn records rather than trusting them. */
  constructor(private readonly path: string, valid: (v: unknown) => v is T) {
    this.cached = new CachedRecords(async () => {
      const data = await readJson<unknown>(this.path);
      return Array.isArray(data) ? data.filter(valid) : [];
    });
  }

  all(): Promise<T[]> {
    return this.cached.copies();
  }

  size(): number {
    return this.cached.size();
  }

  async update<R>(change: (all: T[]) => { next: T[]; result: R }): Promise<R> {
    await this.cached.copies();
    return this.mutex.run('all', async () => {
      const { next, result } = change(await this.cached.copies());
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.path, `${JSON.stringify(next, null, 2)}\n`);
      this.cached.set(next);
      return result;
    });
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
