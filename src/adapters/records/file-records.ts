/**
 * A RecordCollection in one JSON file (`<dataDir>/auth/<name>.json`), loaded once and kept in memory
 * (users and API keys are few), written atomically under one mutex. This process is the only writer
 * (the server), so the cache never goes stale. The directory is created 0700: hashes are not secrets,
 * but nobody else needs to read them.
 *
 * What the store cannot read it never writes over: an entry of the wrong shape (hand-edited, from a
 * newer version) is reported, not trusted, and written back as it was after the valid records; a file
 * that is not a JSON array fails every read and write until it is fixed.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CorruptFileError, readJson, writeFileAtomic } from '../fs/atomic.js';
import { CachedCollection, type ReportProblem } from './cached.js';

export class FileRecords<T extends object> extends CachedCollection<T> {
  /** The entries of the wrong shape, as read: kept in the file, never handed out. */
  private kept: unknown[] = [];

  /** `valid` tells a record to trust from one that is kept aside; `report` hears of each kept one. */
  constructor(private readonly path: string, private readonly valid: (v: unknown) => v is T, private readonly report: ReportProblem = () => undefined) {
    super();
  }

  protected async load(): Promise<T[]> {
    const data = await readJson<unknown>(this.path);
    if (data === undefined) return [];
    if (!Array.isArray(data)) throw new CorruptFileError(this.path, new Error('not a JSON array'));
    const records = data.filter(this.valid);
    this.kept = data.filter((v) => !this.valid(v));
    this.kept.forEach((v) => this.report(`kept an entry of ${this.path} that is not a valid record: it is neither used nor dropped`, { path: this.path, entry: describe(v) }));
    return records;
  }

  protected async persist(_before: T[], next: T[]): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.path, `${JSON.stringify([...next, ...this.kept], null, 2)}\n`);
  }
}

/** What names a kept entry in a report (its id, never the hashes it may hold). */
function describe(v: unknown): string {
  const id = typeof v === 'object' && v !== null ? (v as Record<string, unknown>).id : undefined;
  return typeof id === 'string' ? `id ${JSON.stringify(id.slice(0, 64))}` : `a ${v === null ? 'null' : typeof v}`;
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
