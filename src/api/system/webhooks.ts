/**
 * Webhooks (SPEC 4.7): the trigger POST /webhooks/{fileName} (webhook token) and the Admin
 * management routes GET /webhooks and /dags/{fileName}/webhook[/regenerate|/toggle].
 */
import { Router } from 'express';
import { BadRequestError, DomainError, NotFoundError } from '../../core/errors.js';
import { isValidRunId } from '../../core/resources.js';
import type { WebhookService } from '../../auth/webhook-service.js';
import { bearerToken } from '../../auth/webhook-tokens.js';
import type { DagCatalog, RunLauncher } from '../../engine/services/api.js';
import { fileNameParam } from '../dags/input.js';
import { body as jsonBody } from '../input.js';

/** WEBHOOK_PAYLOAD travels in the step environment: Linux caps one variable near 128 KiB. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

export interface WebhookRouterDeps {
  webhooks: WebhookService;
  catalog: DagCatalog;
  launcher: RunLauncher;
}

interface TriggerBody { dagRunId?: string; payload: unknown }

function triggerBody(body: Record<string, unknown>): TriggerBody {
  const { dagRunId, payload } = body;
  if (dagRunId !== undefined && (typeof dagRunId !== 'string' || !isValidRunId(dagRunId))) {
    throw new BadRequestError('dagRunId must be a run id: letters, digits, _ . - (max 64)');
  }
  if (payload !== undefined && (typeof payload !== 'object' || payload === null || Array.isArray(payload))) {
    throw new BadRequestError('payload must be a JSON object');
  }
  return { ...(dagRunId !== undefined ? { dagRunId } : {}), payload: payload ?? {} };
}

function payloadEnv(payload: unknown): string {
  const text = JSON.stringify(payload);
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) throw new BadRequestError(`payload is larger than ${MAX_PAYLOAD_BYTES} bytes`);
  return text;
}

export function createWebhookRouter(d: WebhookRouterDeps): Router {
  const r = Router();

  r.post('/webhooks/:fileName', async (req, res) => {
    const fileName = fileNameParam(req);
    const token = bearerToken(req.get('authorization'));
    if (!token) throw new DomainError('unauthorized', 'missing webhook token: send Authorization: Bearer svc_wh_...');
    // The token first: an unauthenticated caller learns nothing about which DAGs exist.
    const hook = await d.webhooks.authenticate(fileName, token);
    const entry = await d.catalog.get(fileName).catch(async (e: unknown) => {
      // The DAG went without the API (a file or a Dag resource deleted): its webhook goes now, before a
      // new DAG can take the name.
      if (e instanceof NotFoundError) await d.webhooks.delete(fileName).catch(() => undefined);
      throw e;
    });
    const body = triggerBody(jsonBody(req));
    const env = payloadEnv(body.payload);
    // An existing dagRunId is refused by the store's atomic create (409 already_exists).
    const launched = await d.launcher.start(entry.loaded, {
      trigger: 'webhook', extraEnv: { WEBHOOK_PAYLOAD: env }, ...(body.dagRunId ? { dagRunId: body.dagRunId } : {}),
    });
    await d.webhooks.markUsed(hook);
    res.json({ dagRunId: launched.dagRunId, dagName: launched.dagName });
  });

  r.get('/webhooks', async (_req, res) => {
    res.json({ webhooks: await d.webhooks.list() });
  });

  r.get('/dags/:fileName/webhook', async (req, res) => {
    res.json(await d.webhooks.get(fileNameParam(req)));
  });

  r.post('/dags/:fileName/webhook', async (req, res) => {
    const fileName = fileNameParam(req);
    await d.catalog.get(fileName); // 404 when the DAG does not exist
    res.status(201).json(await d.webhooks.create(fileName));
  });

  r.delete('/dags/:fileName/webhook', async (req, res) => {
    await d.webhooks.delete(fileNameParam(req));
    res.status(204).end();
  });

  r.post('/dags/:fileName/webhook/regenerate', async (req, res) => {
    res.json(await d.webhooks.regenerate(fileNameParam(req)));
  });

  r.post('/dags/:fileName/webhook/toggle', async (req, res) => {
    const fileName = fileNameParam(req);
    const { enabled } = jsonBody(req);
    if (typeof enabled !== 'boolean') throw new BadRequestError('body must be {"enabled": true|false}');
    res.json(await d.webhooks.toggle(fileName, enabled));
  });

  return r;
}
