/**
 * A webhook belongs to the DAG it was made for, not to its name: when that DAG is deleted or renamed
 * through the API, its webhook goes too, so a token made for it never triggers a DAG that later takes the
 * name. Watched here, after remoteNode forwarding (a forwarded delete is the node's business), on the
 * answer: only a delete or rename that happened removes anything. Deletes or renames outside the API (a
 * file removed, a Dag resource deleted) are caught by the trigger, which drops the webhook of a missing DAG.
 */
import type { RequestHandler } from 'express';
import { NotFoundError } from '../../core/errors.js';
import type { WebhookService } from '../../auth/webhook-service.js';

const DELETE_DAG = /^\/dags\/([^/]+)\/?$/i;
const RENAME_DAG = /^\/dags\/([^/]+)\/rename\/?$/i;

function removedDag(method: string, path: string): string | undefined {
  const m = method === 'DELETE' ? DELETE_DAG.exec(path) : method === 'POST' ? RENAME_DAG.exec(path) : null;
  if (!m?.[1]) return undefined;
  try {
    return decodeURIComponent(m[1]); // as the router reads the fileName
  } catch {
    return undefined;
  }
}

export function webhookLifecycle(webhooks: WebhookService, log: { warn(msg: string, f?: Record<string, unknown>): void }): RequestHandler {
  return (req, res, next) => {
    const fileName = removedDag(req.method, req.path);
    if (fileName === undefined) return next();
    // The answer waits for the webhook's removal: once the client hears "deleted", no old token works.
    const end = res.end.bind(res) as (...a: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      if (res.statusCode >= 300) return end(...args);
      void webhooks.delete(fileName).catch((e: unknown) => {
        if (!(e instanceof NotFoundError)) log.warn('Failed to delete the webhook of a removed DAG', { dag: fileName, error: String(e) });
      }).finally(() => end(...args));
      return res;
    }) as typeof res.end;
    next();
  };
}
