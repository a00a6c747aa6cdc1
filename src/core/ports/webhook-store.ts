/**
 * Webhooks (SPEC 2.8, 4.7): one per DAG, keyed by the DAG's fileName. Only a hash of the token is
 * stored (never the token itself); the token is shown once, at creation or regeneration.
 */

export interface StoredWebhook {
  id: string;
  /** The DAG's fileName (the identity in /dags/{fileName}/webhook and /webhooks/{fileName}). */
  dagName: string;
  /** Hex SHA-256 of the whole token. */
  tokenHash: string;
  /** The leading characters of the token, to recognise it without revealing it. */
  tokenPrefix: string;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  /** User id of the creator; empty while authentication does not exist. */
  createdBy: string;
  /** Empty until the first successful trigger. */
  lastUsedAt: string;
}

/**
 * - create fails with AlreadyExistsError when the DAG already has a webhook;
 * - get returns undefined when absent; modify and delete fail with NotFoundError when absent;
 * - modify is atomic per DAG: `change` sees the current record and returns the new one (or undefined
 *   to leave it as is), so a concurrent regenerate can never be overwritten by a stale record.
 */
export interface WebhookStore {
  list(): Promise<StoredWebhook[]>;
  get(dagName: string): Promise<StoredWebhook | undefined>;
  create(hook: StoredWebhook): Promise<StoredWebhook>;
  modify(dagName: string, change: (current: StoredWebhook) => StoredWebhook | undefined): Promise<StoredWebhook>;
  delete(dagName: string): Promise<void>;
  /** Entries held in memory (svc_cache_entries_total{cache="webhook"}). */
  cacheSize(): number;
}
