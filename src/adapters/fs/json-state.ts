/** A small JSON state file (scheduler bookkeeping): atomic replace on save, unreadable or missing = absent. */
import { readJson, writeFileAtomic } from './atomic.js';

export class JsonStateFile<T> {
  constructor(private readonly path: string) {}

  async load(): Promise<T | undefined> {
    try {
      return await readJson<T>(this.path);
    } catch {
      return undefined;
    }
  }

  async save(value: T): Promise<void> {
    await writeFileAtomic(this.path, JSON.stringify(value));
  }
}
