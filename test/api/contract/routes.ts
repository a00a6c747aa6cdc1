/** The routes the express app really serves under /api/v2, read from its router stack. */
import type { Express } from 'express';
import type { TestServer } from '../../helpers/server.js';

interface Layer { rawPath?: unknown; route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } }

const API_BASE = '/api/v2';

function walk(stack: Layer[], prefix: string, out: Set<string>): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const [m, on] of Object.entries(layer.route.methods)) if (on && m !== '_all') out.add(`${m.toUpperCase()} ${prefix}${layer.route.path}`);
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      walk(layer.handle.stack, `${prefix}${mount}`, out);
    }
  }
}

/** `METHOD /path` (express `:param` syntax, relative to /api/v2) of every route of the running server. */
export function apiRoutes(server: TestServer): string[] {
  const app = (server.server as { app?: Express }).app;
  if (!app) throw new Error('RunningServer.app is missing: the route check needs the express app');
  const stack = (app as unknown as { router: { stack: Layer[] } }).router.stack;
  const all = new Set<string>();
  walk(stack, '', all);
  return [...all]
    .filter((r) => r.split(' ')[1]!.startsWith(`${API_BASE}/`))
    .map((r) => r.replace(` ${API_BASE}/`, ' /'))
    .sort();
}
