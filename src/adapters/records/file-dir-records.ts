/**
 * A RecordCollection as one JSON file per record (`<dir>/<key>.json`, the webhooks' layout), written
 * atomically; a change writes only the records it changed and removes the ones it dropped. Loaded once
 * and kept in memory; this process is the only writer (the server). A record file that cannot be read
 * (torn, of the wrong shape) is reported and left alone, and a write of a record under its key is
 * refused (ConflictError) until it is fixed or removed: the store never writes over what it cannot read.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError } from '../../core/errors.js';
import { isNotFound, readJson, writeFileAtomic } from '../fs/atomic.js';
import { CachedCollection, type ReportProblem } from './cached.js';

export interface DirLayout<T> {
  /** The record's file name without `.json`; a record whose key is not `validKey` cannot be stored. */
  key(record: T): string;
  validKey(key: string): boolean;
  /** Drops hand-edited or torn records rather than trusting them (and records under another key). */
  valid(v: unknown): v is T;
}

export class FileDirRecords<T extends object> extends CachedCollection<T> {
  /** Keys whose file exists but holds no valid record. */
  private unreadable = new Set<string>();

  constructor(private readonly dir: string, private readonly layout: DirLayout<T>, private readonly report: ReportProblem = () => undefined) {
    super();
  }

  /** Writes only the records that changed and removes the ones dropped. */
  protected async persist(before: T[], next: T[]): Promise<void> {
    const old = new Map(before.map((r) => [this.layout.key(r), JSON.stringify(r)]));
    const keys = new Set<string>();
    // Every key checked before anything is written: a refused change writes nothing.
    for (const key of next.map((r) => this.layout.key(r))) {
      if (!this.layout.validKey(key) || keys.has(key)) throw new Error(`record key ${JSON.stringify(key)} is invalid or repeated`);
      if (this.unreadable.has(key)) throw new ConflictError(`${this.file(key)} exists but cannot be read as a record: fix or remove it first`);
      keys.add(key);
    }
    for (const r of next) {
      const key = this.layout.key(r);
      if (old.get(key) !== JSON.stringify(r)) await writeFileAtomic(this.file(key), `${JSON.stringify(r, null, 2)}\n`);
    }
    for (const key of old.keys()) if (!keys.has(key)) await rm(this.file(key), { force: true });
  }

  private file(key: string): string {
    return join(this.dir, `${key}.json`);
  }

  protected async load(): Promise<T[]> {
    let names: string[] = [];
    try {
      names = (await readdir(this.dir)).sort();
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const out: T[] = [];
    const unreadable = new Set<string>();
    for (const n of names) {
      const key = n.endsWith('.json') ? n.slice(0, -5) : '';
      if (!this.layout.validKey(key)) continue;
      const rec = await readJson<unknown>(join(this.dir, n)).catch(() => undefined);
      if (this.layout.valid(rec) && this.layout.key(rec) === key) out.push(rec);
      else unreadable.add(key);
    }
    this.unreadable = unreadable;
    for (const key of unreadable) this.report(`${this.file(key)} is not a valid record: it is left alone and not used`, { path: this.file(key) });
    return out;
  }
}
