/**
 * A small JSON state file (scheduler bookkeeping): atomic replace on save, missing = absent.
 *
 * The file is read through the safe open (a link, FIFO or hard link planted at its name is not followed).
 * A file that exists but cannot be read (planted, bad JSON, too big) is reported and kept: the next save
 * moves it aside to `<name>.unreadable-<ms>` (a rename: a link is moved, its target untouched) instead
 * of replacing it silently.
 */
import { rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseJson, writeFileAtomic } from './atomic.js';
import { readSmallUnder } from './safe-open.js';

/** Far above any bookkeeping we write. */
const MAX_BYTES = 1024 * 1024;

export type UnreadableReport = (path: string, error: unknown) => void;

export class JsonStateFile<T> {
  private unreadable = false;

  constructor(private readonly path: string, private readonly report: UnreadableReport = () => undefined) {}

  async load(): Promise<T | undefined> {
    try {
      const text = await readSmallUnder(dirname(this.path), this.path, MAX_BYTES);
      return text === undefined ? undefined : parseJson<T>(this.path, text);
    } catch (e) {
      this.unreadable = true;
      this.report(this.path, e);
      return undefined;
    }
  }

  async save(value: T): Promise<void> {
    if (this.unreadable) {
      const aside = `${this.path}.unreadable-${Date.now()}`;
      await rename(this.path, aside).catch((e: unknown) => {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      });
      this.unreadable = false;
    }
    await writeFileAtomic(this.path, JSON.stringify(value));
  }
}
