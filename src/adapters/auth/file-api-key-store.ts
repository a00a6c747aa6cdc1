/** ApiKeyStore on local disk: `<dataDir>/auth/api-keys.json`. Only hashes of keys are written. */
import { join } from 'node:path';
import { AlreadyExistsError, NotFoundError } from '../../core/errors.js';
import type { ApiKeyStore, StoredApiKey } from '../../core/ports/auth-stores.js';
import { JsonRecords, shapeCheck } from './json-records.js';

const isKey = shapeCheck<StoredApiKey>(
  { id: 'string', name: 'string', description: 'string', role: 'string', keyPrefix: 'string', keyHash: 'string', createdAt: 'string', updatedAt: 'string', createdBy: 'string' },
  { lastUsedAt: 'string' },
);

export class FileApiKeyStore implements ApiKeyStore {
  private readonly records: JsonRecords<StoredApiKey>;

  constructor(dataDir: string) {
    this.records = new JsonRecords(join(dataDir, 'auth', 'api-keys.json'), isKey);
  }

  async list(): Promise<StoredApiKey[]> {
    return (await this.records.all()).sort((a, b) => a.name.localeCompare(b.name));
  }

  async get(id: string): Promise<StoredApiKey | undefined> {
    return this.records.find((k) => k.id === id);
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
