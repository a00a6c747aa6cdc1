/**
 * A RecordCollection in one JSON file (`<dataDir>/auth/<name>.json`), loaded once and kept in memory
 * (users and API keys are few), written atomically under one mutex. This process is the only writer
 * (the server), so the cache never goes stale. The directory is created 0700: hashes are not secrets,
 * but nobody else needs to read them.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readJson, writeFileAtomic } from '../fs/atomic.js';
import { CachedCollection } from './cached.js';

export class FileRecords<T extends object> extends CachedCollection<T> {
  /** `valid` drops hand-edited or torn records rather than trusting them. */
  constructor(private readonly path: string, private readonly valid: (v: unknown) => v is T) {
    super();
  }

  protected async load(): Promise<T[]> {
    const data = await readJson<unknown>(this.path);
    return Array.isArray(data) ? data.filter(this.valid) : [];
  }

  protected async persist(_before: T[], next: T[]): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, `${JSON.stringify(next, null, 2)}\n`);
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
