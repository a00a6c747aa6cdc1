/**
 * The typed client of REST API v2 (openapi-fetch over the generated `paths`). Every request carries the
 * session's bearer token when there is one; a 401 from any API call but the login itself sends the
 * browser to the login page (session.loggedOut(true)). Every request says it comes from a script
 * (X-Requested-With): the server refuses a state change without it or a JSON body.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import { session } from '../auth/session';
import type { paths } from './schema.generated';
import type { ApiErrorBody } from './types';

export const API_BASE = '/api/v2';

/** An API error answer: its HTTP status and the body's `{code, message, details}` (SPEC 7). */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details?: Record<string, unknown>) {
    super(message);
    this.name = 'ApiError';
  }
}

const auth: Middleware = {
  onRequest({ request }) {
    // The server takes a state change only from a script (a form or a link elsewhere cannot send this).
    request.headers.set('x-requested-with', 'svc-ui');
    const token = session.token();
    if (token && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.endsWith('/auth/login')) session.loggedOut(true);
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: API_BASE });
api.use(auth);

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an ApiError with the server's code and message. */
export async function must<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw toError(response, error);
  return data as T;
}

/** Like must(), but a 404 is `null` (a DAG without runs has no `latest`). */
export async function orNull<T>(call: Promise<Result<T>>): Promise<T | null> {
  try {
    return await must(call);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
}

function toError(response: Response, body: unknown): ApiError {
  const b = (body ?? {}) as Partial<ApiErrorBody>;
  const message = typeof b.message === 'string' ? b.message : `${response.status} ${response.statusText}`.trim();
  const details = typeof b.details === 'object' && b.details !== null ? b.details : undefined;
  return new ApiError(response.status, typeof b.code === 'string' ? b.code : 'error', message, details);
}
