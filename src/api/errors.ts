/** The one place domain errors become HTTP (SPEC 7): `{code, message, details?}`. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, type ErrorCode } from '../core/errors.js';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400, unauthorized: 401, forbidden: 403, not_found: 404, already_exists: 409, already_running: 409,
  max_run_reached: 409, not_running: 400, timeout: 408, service_unavailable: 503, conflict: 409, too_many_requests: 429,
};

/** A DomainError may carry its own status when the spec gives a code two statuses (already_running: 409 or 400). */
export class HttpError extends DomainError {
  constructor(readonly status: number, code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(code, message, details);
  }
}

/** The status code of a domain error. */
export const statusOf = (err: DomainError): number => (err instanceof HttpError ? err.status : STATUS[err.code] ?? 400);

export const errorBody = (code: string, message: string, details?: Record<string, unknown>) => ({ code, message, ...(details ? { details } : {}) });

export function errorMiddleware(log: { error(msg: string, f?: Record<string, unknown>): void }): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (err instanceof DomainError) return void res.status(statusOf(err)).json(errorBody(err.code, err.message, err.details));
    const e = err as { type?: string; status?: number; message?: string };
    if (e?.type === 'entity.parse.failed') return void res.status(400).json(errorBody('bad_request', `invalid JSON body: ${e.message}`));
    if (e?.type === 'entity.too.large') return void res.status(413).json(errorBody('bad_request', 'request body too large'));
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return void res.status(e.status).json(errorBody('bad_request', e.message ?? 'bad request'));
    log.error('Unhandled API error', { error: err instanceof Error ? err.stack : String(err) });
    res.status(500).json(errorBody('internal_error', 'internal server error'));
  };
}

export const notFoundRoute: RequestHandler = (req, res) => {
  res.status(404).json(errorBody('not_found', `no route ${req.method} ${req.path}`));
};
