/**
 * API keys (SPEC 4.6, 5.1): `svc_<40 random characters>` (240 bits), shown once at creation; only the
 * SHA-256 of the key and its first 12 characters (keyPrefix) are stored. Lookup compares hashes in
 * constant time. lastUsedAt is written at most once a minute per key (not on every request).
 */
import { randomBytes } from 'node:crypto';
import { matchesHash, sha256 } from './digest.js';
import { BadRequestError, NotFoundError } from '../core/errors.js';
import { API_KEY_DESCRIPTION_MAX, API_KEY_NAME_MAX, isRole, type Role } from '../core/auth/roles.js';
import type { ApiKeyStore, StoredApiKey } from '../core/ports/auth-stores.js';
import { WEBHOOK_TOKEN_PREFIX } from './webhook-tokens.js';

export const API_KEY_PREFIX = 'svc_';
const PREFIX_SHOWN = 12;
const LAST_USED_EVERY_MS = 60_000;

export type ApiKey = Omit<StoredApiKey, 'keyHash'>;
export const publicApiKey = ({ keyHash: _hidden, ...rest }: StoredApiKey): ApiKey => rest;

function newKey(): string {
  for (;;) {
    const key = `${API_KEY_PREFIX}${randomBytes(30).toString('base64url')}`;
    if (!key.startsWith(WEBHOOK_TOKEN_PREFIX)) return key; // never mistaken for a webhook token
  }
}

type Fields = { name?: string; description?: string; role?: Role };

function fields(body: unknown, creating: boolean): Fields {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new BadRequestError('the body must be a JSON object');
  const { name, description, role } = body as Record<string, unknown>;
  if (creating || name !== undefined) {
    if (typeof name !== 'string' || name.trim() === '' || name.length > API_KEY_NAME_MAX) throw new BadRequestError(`name must be a string of 1-${API_KEY_NAME_MAX} characters`);
  }
  if (description !== undefined && (typeof description !== 'string' || description.length > API_KEY_DESCRIPTION_MAX)) {
    throw new BadRequestError(`description must be a string of at most ${API_KEY_DESCRIPTION_MAX} characters`);
  }
  if ((creating || role !== undefined) && !isRole(role)) throw new BadRequestError('role must be one of admin, manager, operator, viewer');
  return { ...(name !== undefined ? { name: (name as string).trim() } : {}), ...(description !== undefined ? { description: description as string } : {}), ...(role !== undefined ? { role: role as Role } : {}) };
}

export class ApiKeyService {
  constructor(private readonly store: ApiKeyStore, private readonly now: () => number, private readonly newId: () => string) {}

  async list(): Promise<ApiKey[]> {
    return (await this.store.list()).map(publicApiKey);
  }

  async get(id: string): Promise<ApiKey> {
    const k = await this.store.get(id);
    if (!k) throw new NotFoundError(`API key ${id} not found`, { keyId: id });
    return publicApiKey(k);
  }

  async create(body: unknown, createdBy: string): Promise<{ apiKey: ApiKey; key: string }> {
    const f = fields(body, true);
    const key = newKey();
    const at = this.iso();
    const saved = await this.store.create({
      id: this.newId(), name: f.name as string, description: f.description ?? '', role: f.role as Role,
      keyPrefix: key.slice(0, PREFIX_SHOWN), keyHash: sha256(key).toString('hex'), createdAt: at, updatedAt: at, createdBy,
    });
    return { apiKey: publicApiKey(saved), key };
  }

  async update(id: string, body: unknown): Promise<ApiKey> {
    const f = fields(body, false);
    return publicApiKey(await this.store.modify(id, (k) => ({ ...k, ...f, updatedAt: this.iso() })));
  }

  delete(id: string): Promise<void> {
    return this.store.delete(id);
  }

  /** The key a bearer credential names (and every key, to follow its creator), or undefined. Every stored hash is compared (constant time). */
  async authenticate(key: string): Promise<{ key: StoredApiKey; all: StoredApiKey[] } | undefined> {
    const d = sha256(key);
    let found: StoredApiKey | undefined;
    const all = await this.store.list();
    for (const k of all) if (matchesHash(d, k.keyHash)) found = k;
    if (!found) return undefined;
    await this.markUsed(found);
    return { key: found, all };
  }

  /** A key by id and every key (to follow its creator), without marking it used. */
  async stored(id: string): Promise<{ key: StoredApiKey; all: StoredApiKey[] } | undefined> {
    const all = await this.store.list();
    const key = all.find((k) => k.id === id);
    return key ? { key, all } : undefined;
  }

  private async markUsed(k: StoredApiKey): Promise<void> {
    if (k.lastUsedAt && this.now() - Date.parse(k.lastUsedAt) < LAST_USED_EVERY_MS) return;
    await this.store.modify(k.id, (cur) => ({ ...cur, lastUsedAt: this.iso() })).catch(() => undefined);
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
