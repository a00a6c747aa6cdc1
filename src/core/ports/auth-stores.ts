/**
 * Stores of authentication (ARCHITECTURE "Users, API keys, webhooks: a small auth store port"). Secrets
 * never reach a store: users keep a password hash, API keys a SHA-256 of the key.
 */
import type { Role } from '../auth/roles.js';

export interface StoredUser {
  id: string;
  username: string;
  role: Role;
  isDisabled: boolean;
  /** `scrypt$N$r$p$salt$hash`, or empty for an OIDC user without a local password. */
  passwordHash: string;
  /** Bumped when the password changes: JWTs carrying an older value stop working. */
  tokenVersion: number;
  /** OIDC identity (`issuer|subject`) of a user created or linked by an OIDC login. */
  oidcIdentity?: string;
  email?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * - create fails with AlreadyExistsError when the username is taken (case-insensitive);
 * - get and findByUsername return undefined when absent; modify and delete fail with NotFoundError;
 * - modify is atomic: `change` sees the current record and returns the new one (or throws).
 */
export interface UserStore {
  list(): Promise<StoredUser[]>;
  get(id: string): Promise<StoredUser | undefined>;
  findByUsername(username: string): Promise<StoredUser | undefined>;
  findByOidc(identity: string): Promise<StoredUser | undefined>;
  create(user: StoredUser): Promise<StoredUser>;
  modify(id: string, change: (current: StoredUser, all: StoredUser[]) => StoredUser): Promise<StoredUser>;
  delete(id: string, check?: (current: StoredUser, all: StoredUser[]) => void): Promise<void>;
}

export interface StoredApiKey {
  id: string;
  name: string;
  description: string;
  role: Role;
  /** The leading characters of the key, to recognise it without revealing it. */
  keyPrefix: string;
  /** Hex SHA-256 of the whole key. */
  keyHash: string;
  createdAt: string;
  updatedAt: string;
  createdBy: string;
  lastUsedAt?: string;
}

/** Like UserStore; names are unique (create and a renaming modify fail with AlreadyExistsError). */
export interface ApiKeyStore {
  list(): Promise<StoredApiKey[]>;
  get(id: string): Promise<StoredApiKey | undefined>;
  create(key: StoredApiKey): Promise<StoredApiKey>;
  modify(id: string, change: (current: StoredApiKey) => StoredApiKey): Promise<StoredApiKey>;
  delete(id: string): Promise<void>;
  /** Entries held in memory (svc_cache_entries_total{cache="api_key"}). */
  cacheSize(): number;
}

/** One security event (SPEC 6 item 6). Never a password, key or token. */
export interface AuditEntry {
  time: string;
  /** Who: a username, `apikey:<name>`, `static-token`, or `anonymous`. */
  actor: string;
  action: string;
  /** What it acted on: a username, key name, DAG fileName. */
  target?: string;
  /** Source address of the request. */
  source?: string;
  outcome?: 'success' | 'failure';
  details?: Record<string, string | number | boolean>;
}

export interface AuditLog {
  append(entry: AuditEntry): Promise<void>;
}
