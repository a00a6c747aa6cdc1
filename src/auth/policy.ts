/**
 * THE access policy: the minimum role of every route of REST API v2 (SPEC 5.3 leaves it open; docs/auth.md
 * has the same table, and a test keeps the two and the app's real routes in agreement). One middleware
 * applies it before any router (api/auth/guard.ts). First matching row wins, so literal paths come before
 * parameterised ones. A route missing here needs admin (fail closed).
 *
 * Access values: `public` (no credentials), `webhook` (the route checks its own webhook token),
 * `ticket` (the web terminal's WebSocket, which checks its own single-use ticket, issued to admins),
 * `metrics` (public or viewer, by the metrics setting), or the minimum role.
 */
import type { Role } from '../core/auth/roles.js';

export type Access = 'public' | 'webhook' | 'ticket' | 'metrics' | Role;
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface PolicyRule {
  method: Method;
  path: string;
  access: Access;
  /** Audit action written when the route answers (webhook operations: their router does not audit). */
  audit?: string;
}

const R = (method: Method, path: string, access: Access, audit?: string): PolicyRule => ({ method, path, access, ...(audit ? { audit } : {}) });

export const POLICY: readonly PolicyRule[] = [
  // System
  R('GET', '/health', 'public'),
  R('GET', '/openapi.json', 'public'),
  R('GET', '/metrics', 'metrics'),
  R('GET', '/workers', 'viewer'),
  R('GET', '/services/resources/history', 'admin'),
  // Web terminal: a shell on the server host
  R('GET', '/terminal', 'admin'),
  R('POST', '/terminal/tickets', 'admin'),
  R('GET', '/terminal/session', 'ticket'),
  // Authentication and users
  R('POST', '/auth/login', 'public'),
  R('GET', '/auth/oidc', 'public'),
  R('GET', '/auth/oidc/login', 'public'),
  R('GET', '/auth/me', 'viewer'),
  R('POST', '/auth/change-password', 'viewer'),
  R('GET', '/users', 'admin'),
  R('POST', '/users', 'admin'),
  R('PUT', '/users/:userId', 'admin'),
  R('PATCH', '/users/:userId', 'admin'),
  R('DELETE', '/users/:userId', 'admin'),
  R('PUT', '/users/:userId/password', 'admin'),
  R('GET', '/api-keys', 'admin'),
  R('POST', '/api-keys', 'admin'),
  R('GET', '/api-keys/:keyId', 'admin'),
  R('PATCH', '/api-keys/:keyId', 'admin'),
  R('DELETE', '/api-keys/:keyId', 'admin'),
  // Webhooks
  R('POST', '/webhooks/:fileName', 'webhook', 'webhook.trigger'),
  R('GET', '/webhooks', 'admin'),
  R('GET', '/dags/:fileName/webhook', 'admin'),
  R('POST', '/dags/:fileName/webhook', 'admin', 'webhook.create'),
  R('DELETE', '/dags/:fileName/webhook', 'admin', 'webhook.delete'),
  R('POST', '/dags/:fileName/webhook/regenerate', 'admin', 'webhook.regenerate'),
  R('POST', '/dags/:fileName/webhook/toggle', 'admin', 'webhook.toggle'),
  // DAGs: read
  R('GET', '/dags', 'viewer'),
  R('GET', '/dags/search', 'viewer'),
  R('GET', '/dags/tags', 'viewer'),
  R('POST', '/dags/validate', 'viewer'),
  R('GET', '/dags/:fileName', 'viewer'),
  R('GET', '/dags/:fileName/spec', 'viewer'),
  R('GET', '/dags/:fileName/dag-runs', 'viewer'),
  R('GET', '/dags/:fileName/dag-runs/:dagRunId', 'viewer'),
  // DAGs: write
  R('POST', '/dags', 'manager'),
  R('DELETE', '/dags/:fileName', 'manager'),
  R('PUT', '/dags/:fileName/spec', 'manager'),
  R('POST', '/dags/:fileName/rename', 'manager'),
  R('POST', '/dags/:fileName/suspend', 'manager'),
  // DAGs: run
  R('POST', '/dags/:fileName/start', 'operator'),
  R('POST', '/dags/:fileName/start-sync', 'operator'),
  R('POST', '/dags/:fileName/enqueue', 'operator'),
  R('POST', '/dags/:fileName/stop-all', 'operator'),
  // Runs: inline specs run arbitrary commands, like creating a DAG
  R('POST', '/dag-runs', 'manager'),
  R('POST', '/dag-runs/enqueue', 'manager'),
  // Runs: read
  R('GET', '/dag-runs', 'viewer'),
  R('GET', '/dag-runs/:name/:dagRunId', 'viewer'),
  R('GET', '/dag-runs/:name/:dagRunId/log', 'viewer'),
  R('GET', '/dag-runs/:name/:dagRunId/outputs', 'viewer'),
  R('GET', '/dag-runs/:name/:dagRunId/steps/:stepName/log', 'viewer'),
  R('GET', '/dag-runs/:name/:dagRunId/sub-dag-runs', 'viewer'),
  R('GET', '/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/spec', 'viewer'),
  // Event streams (server-sent events): as the reads they follow
  R('GET', '/events/dag-runs', 'viewer'),
  R('GET', '/events/dag-runs/:name/:dagRunId/steps/:stepName/log', 'viewer'),
  // Runs: control
  R('POST', '/dag-runs/:name/:dagRunId/stop', 'operator'),
  R('POST', '/dag-runs/:name/:dagRunId/retry', 'operator'),
  R('POST', '/dag-runs/:name/:dagRunId/reschedule', 'operator'),
  R('GET', '/dag-runs/:name/:dagRunId/dequeue', 'operator'),
  R('PATCH', '/dag-runs/:name/:dagRunId/steps/:stepName/status', 'operator'),
  R('POST', '/dag-runs/:name/:dagRunId/steps/:stepName/approve', 'operator'),
  R('POST', '/dag-runs/:name/:dagRunId/steps/:stepName/reject', 'operator'),
];

/** A rule for routes nobody listed: fail closed. */
export const UNLISTED: PolicyRule = { method: 'GET', path: '*', access: 'admin' };

function compile(path: string): RegExp {
  const parts = path.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  // express matches case-insensitively and tolerates one trailing slash: so does the policy.
  return new RegExp(`^${parts.join('/')}/?$`, 'i');
}

export class Policy {
  private readonly compiled: { rule: PolicyRule; re: RegExp }[];

  constructor(rules: readonly PolicyRule[] = POLICY) {
    this.compiled = rules.map((rule) => ({ rule, re: compile(rule.path) }));
  }

  /** The rule of a request (path relative to /api/v2, as sent: still percent-encoded). */
  match(method: string, path: string): PolicyRule {
    const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
    return this.compiled.find((c) => c.rule.method === m && c.re.test(path))?.rule ?? UNLISTED;
  }
}
