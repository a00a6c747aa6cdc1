/**
 * WebhookStore on local disk: `<dataDir>/webhooks/<fileName>.json`, one file per DAG, written
 * atomically. All records are loaded once and kept in memory (few, small); this process is their only
 * writer (the server), so the cache never goes stale. No token is ever written: only its hash.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AlreadyExistsError, BadRequestError, NotFoundError } from '../../core/errors.js';
import type { StoredWebhook, WebhookStore } from '../../core/ports/webhook-store.js';
import { isValidFileName } from '../../core/spec/names.js';
import { isNotFound, readJson, writeFileAtomic } from '../fs/atomic.js';
import { KeyedMutex } from '../store/local/mutex.js';
import { shapeCheck } from '../auth/json-records.js';

const FIELDS: Record<keyof StoredWebhook, 'string' | 'boolean'> = {
  id: 'string', dagName: 'string', tokenHash: 'string', tokenPrefix: 'string', enabled: 'boolean',
  createdAt: 'string', updatedAt: 'string', createdBy: 'string', lastUsedAt: 'string',
};

const isStoredWebhook = shapeCheck<StoredWebhook>(FIELDS);

export class FileWebhookStore implements WebhookStore {
  private readonly dir: string;
  private cache?: Map<string, StoredWebhook>;
  private loading?: Promise<Map<string, StoredWebhook>>;
  private readonly mutex = new KeyedMutex();

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'webhooks');
  }

  async list(): Promise<StoredWebhook[]> {
    const all = [...(await this.load()).values()];
    return all.sort((a, b) => a.dagName.localeCompare(b.dagName)).map((h) => ({ ...h }));
  }

  async get(dagName: string): Promise<StoredWebhook | undefined> {
    const h = (await this.load()).get(this.checked(dagName));
    return h ? { ...h } : undefined;
  }

  create(hook: StoredWebhook): Promise<StoredWebhook> {
    return this.write(hook.dagName, (current) => {
      if (current) throw new AlreadyExistsError(`DAG ${hook.dagName} already has a webhook`, { fileName: hook.dagName });
      return hook;
    });
  }

  modify(dagName: string, change: (current: StoredWebhook) => StoredWebhook | undefined): Promise<StoredWebhook> {
    return this.write(dagName, (current) => {
      if (!current) throw new NotFoundError(`DAG ${dagName} has no webhook`, { fileName: dagName });
      const next = change({ ...current });
      return next && { ...next, dagName: current.dagName, id: current.id };
    });
  }

  async delete(dagName: string): Promise<void> {
    const name = this.checked(dagName);
    const cache = await this.load();
    await this.mutex.run(name, async () => {
      if (!cache.has(name)) throw new NotFoundError(`DAG ${name} has no webhook`, { fileName: name });
      await rm(this.file(name), { force: true });
      cache.delete(name);
    });
  }

  cacheSize(): number {
    return this.cache?.size ?? 0;
  }

  /** Read-check-write of one DAG's record under its mutex; `next` returns undefined to keep it. */
  private async write(dagName: string, next: (current: StoredWebhook | undefined) => StoredWebhook | undefined): Promise<StoredWebhook> {
    const name = this.checked(dagName);
    const cache = await this.load();
    return this.mutex.run(name, async () => {
      const current = cache.get(name);
      const rec = next(current ? { ...current } : undefined);
      if (!rec) return { ...(current as StoredWebhook) };
      await writeFileAtomic(this.file(name), `${JSON.stringify(rec, null, 2)}\n`);
      cache.set(name, { ...rec });
      return { ...rec };
    });
  }

  private load(): Promise<Map<string, StoredWebhook>> {
    if (this.cache) return Promise.resolve(this.cache);
    // A failed read (EMFILE, a torn file) is not cached: the next call tries again.
    this.loading ??= this.readAll().then((m) => (this.cache = m), (e: unknown) => { this.loading = undefined; throw e; });
    return this.loading;
  }

  private async readAll(): Promise<Map<string, StoredWebhook>> {
    const map = new Map<string, StoredWebhook>();
    let names: string[] = [];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    for (const n of names) {
      const name = n.endsWith('.json') ? n.slice(0, -5) : '';
      if (!isValidFileName(name)) continue;
      const rec = await readJson<unknown>(join(this.dir, n)).catch(() => undefined);
      // A hand-edited or torn record is skipped rather than trusted: its webhook cannot be used.
      if (isStoredWebhook(rec) && rec.dagName === name) map.set(name, rec);
    }
    return map;
  }

  private checked(dagName: string): string {
    if (!isValidFileName(dagName)) throw new BadRequestError(`invalid fileName ${JSON.stringify(dagName)}`);
    return dagName;
  }

  private file(name: string): string {
    return join(this.dir, `${name}.json`);
  }
}
