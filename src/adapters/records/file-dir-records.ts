/**
 * A RecordCollection as one JSON file per record (`<dir>/<key>.json`, the webhooks' layout), written
 * atomically; a change writes only the records it changed and removes the ones it dropped. Loaded once
 * and kept in memory; this process is the only writer (the server).
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordCollection } from '../../core/ports/records.js';
import { isNotFound, readJson, writeFileAtomic } from '../fs/atomic.js';
import { KeyedMutex } from '../store/local/mutex.js';
import { CachedRecords } from './cached.js';

export interface DirLayout<T> {
  /** The record's file name without `.json`; a record whose key is not `validKey` cannot be stored. */
  key(record: T): string;
  validKey(key: string): boolean;
  /** Drops hand-edited or torn records rather than trusting them (and records under another key). */
  valid(v: unknown): v is T;
}

export class FileDirRecords<T extends object> implements RecordCollection<T> {
  private readonly cached: CachedRecords<T>;
  private readonly mutex = new KeyedMutex();

  constructor(private readonly dir: string, private readonly layout: DirLayout<T>) {
    this.cached = new CachedRecords(() => this.readAll());
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
      const current = await this.cached.copies();
      const { next, result } = change(structuredClone(current));
      const before = new Map(current.map((r) => [this.layout.key(r), JSON.stringify(r)]));
      const keys = new Set<string>();
      for (const r of next) {
        const key = this.layout.key(r);
        if (!this.layout.validKey(key) || keys.has(key)) throw new Error(`record key ${JSON.stringify(key)} is invalid or repeated`);
        keys.add(key);
        if (before.get(key) !== JSON.stringify(r)) await writeFileAtomic(this.file(key), `${JSON.stringify(r, null, 2)}\n`);
      }
      for (const key of before.keys()) if (!keys.has(key)) await rm(this.file(key), { force: true });
      this.cached.set(next);
      return result;
    });
  }

  private file(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  private async readAll(): Promise<T[]> {
    let names: string[] = [];
    try {
      names = (await readdir(this.dir)).sort();
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const out: T[] = [];
    for (const n of names) {
      const key = n.endsWith('.json') ? n.slice(0, -5) : '';
      if (!this.layout.validKey(key)) continue;
      const rec = await readJson<unknown>(join(this.dir, n)).catch(() => undefined);
      if (this.layout.valid(rec) && this.layout.key(rec) === key) out.push(rec);
    }
    return out;
  }
}
