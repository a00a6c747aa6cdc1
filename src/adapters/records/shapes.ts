/** What a stored user, API key and webhook record must look like: a record that does not is dropped, never trusted. */
import type { StoredApiKey, StoredUser } from '../../core/ports/auth-stores.js';
import type { StoredWebhook } from '../../core/ports/webhook-store.js';
import { shapeCheck } from './file-records.js';

export const isStoredUser = shapeCheck<StoredUser>(
  { id: 'string', username: 'string', role: 'string', isDisabled: 'boolean', passwordHash: 'string', tokenVersion: 'number', createdAt: 'string', updatedAt: 'string' },
  { oidcIdentity: 'string', email: 'string' },
);

export const isStoredApiKey = shapeCheck<StoredApiKey>(
  { id: 'string', name: 'string', description: 'string', role: 'string', keyPrefix: 'string', keyHash: 'string', createdAt: 'string', updatedAt: 'string', createdBy: 'string' },
  { lastUsedAt: 'string' },
);

export const isStoredWebhook = shapeCheck<StoredWebhook>({
  id: 'string', dagName: 'string', tokenHash: 'string', tokenPrefix: 'string', enabled: 'boolean',
  createdAt: 'string', updatedAt: 'string', createdBy: 'string', lastUsedAt: 'string',
});
