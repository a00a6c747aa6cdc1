/** ApiKeyStore over a RecordCollection: names unique, ids fixed. Only hashes of keys are ever stored. */
import { AlreadyExistsError, NotFoundError } from '../../core/errors.js';
import type { ApiKeyStore, StoredApiKey } from '../../core/ports/auth-stores.js';
import type { RecordCollection } from '../../core/ports/records.js';

export class RecordApiKeyStore implements ApiKeyStore {
  constructor(private readonly records: RecordCollection<StoredApiKey>) {}

  async list(): Promise<StoredApiKey[]> {
    return (await this.records.all()).sort((a, b) => a.name.localeCompare(b.name));
  }

  async get(id: string): Promise<StoredApiKey | undefined> {
    return (await this.records.all()).find((k) => k.id === id);
  }

  create(key: StoredApiKey): Promise<StoredApiKey> {
    return this.records.update((all) => {
      if (all.some((k) => k.name === key.name)) throw new AlreadyExistsError(`an API key named ${key.name} already exists`);
      return { next: [...all, key], result: { ...key } };
    });
  }

  modify(id: string, change: (current: StoredApiKey) => StoredApiKey): Promise<StoredApiKey> {
    return this.records.update((all) => {
      const i = all.findIndex((k) => k.id === id);
      if (i < 0) throw new NotFoundError(`API key ${id} not found`);
      const next = { ...change({ ...(all[i] as StoredApiKey) }), id };
      if (all.some((k) => k.id !== id && k.name === next.name)) throw new AlreadyExistsError(`an API key named ${next.name} already exists`);
      return { next: all.map((k, j) => (j === i ? next : k)), result: { ...next } };
    });
  }

  delete(id: string): Promise<void> {
    return this.records.update((all) => {
      if (!all.some((k) => k.id === id)) throw new NotFoundError(`API key ${id} not found`);
      return { next: all.filter((k) => k.id !== id), result: undefined };
    });
  }

  cacheSize(): number {
    return this.records.size();
  }
}
