/** API keys (SPEC 4.6, Admin): the full key is in the creation response only. */
import { Router, type Request, type Response } from 'express';
import type { Auditor } from '../../auth/audit.js';
import type { ApiKeyService } from '../../auth/api-keys.js';
import { auditSuccess, builtinService, idParam, principalOf } from './context.js';

export interface ApiKeysDeps {
  builtin: boolean;
  apiKeys?: ApiKeyService;
  audit: Auditor;
}

export function apiKeysRouter(d: ApiKeysDeps): Router {
  const r = Router();
  const svc = (): ApiKeyService => builtinService(d.builtin, d.apiKeys);
  const audit = (req: Request, res: Response, action: string, target: string, details?: Record<string, string>) =>
    auditSuccess(d.audit, req, res, action, target, details);

  r.get('/api-keys', async (_req, res) => {
    res.json({ apiKeys: await svc().list() });
  });

  r.post('/api-keys', async (req, res) => {
    const created = await svc().create(req.body, principalOf(res)?.id ?? '');
    await audit(req, res, 'apikey.create', created.apiKey.name, { keyPrefix: created.apiKey.keyPrefix, role: created.apiKey.role });
    res.status(201).json(created);
  });

  r.get('/api-keys/:keyId', async (req, res) => {
    res.json({ apiKey: await svc().get(idParam(req, 'keyId')) });
  });

  r.patch('/api-keys/:keyId', async (req, res) => {
    const apiKey = await svc().update(idParam(req, 'keyId'), req.body);
    await audit(req, res, 'apikey.update', apiKey.name, { role: apiKey.role });
    res.json({ apiKey });
  });

  r.delete('/api-keys/:keyId', async (req, res) => {
    const keys = svc();
    const key = await keys.get(idParam(req, 'keyId'));
    await keys.delete(key.id);
    await audit(req, res, 'apikey.delete', key.name, { keyPrefix: key.keyPrefix });
    res.status(204).end();
  });

  return r;
}
