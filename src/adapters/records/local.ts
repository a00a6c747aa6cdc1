/**
 * The embedded backend's record collections: `<dataDir>/auth/users.json`, `<dataDir>/auth/api-keys.json`
 * and `<dataDir>/webhooks/<fileName>.json` (one file per DAG).
 */
import { join } from 'node:path';
import type { StoredApiKey, StoredUser } from '../../core/ports/auth-stores.js';
import type { RecordCollection } from '../../core/ports/records.js';
import type { StoredWebhook } from '../../core/ports/webhook-store.js';
import { isValidFileName } from '../../core/spec/names.js';
import type { ReportProblem } from './cached.js';
import { FileDirRecords } from './file-dir-records.js';
import { FileRecords } from './file-records.js';
import { isStoredApiKey, isStoredUser, isStoredWebhook } from './shapes.js';

export const localUsers = (dataDir: string, report?: ReportProblem): RecordCollection<StoredUser> =>
  new FileRecords(join(dataDir, 'auth', 'users.json'), isStoredUser, report);

export const localApiKeys = (dataDir: string, report?: ReportProblem): RecordCollection<StoredApiKey> =>
  new FileRecords(join(dataDir, 'auth', 'api-keys.json'), isStoredApiKey, report);

export const localWebhooks = (dataDir: string, report?: ReportProblem): RecordCollection<StoredWebhook> =>
  new FileDirRecords(join(dataDir, 'webhooks'), { key: (h) => h.dagName, validKey: isValidFileName, valid: isStoredWebhook }, report);
