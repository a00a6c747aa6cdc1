/**
 * The web UI (src/ui, built by `npm run build` into dist/ui) at the server root, on either backend:
 * hashed files under /assets with a year-long immutable cache; index.html, never cached, for every other
 * GET outside /api, so a client-side route survives a reload. The API keeps its own answers (its JSON
 * 404s included): /api is never answered here. Without a built UI (a tree where only tsc ran) the
 * server still starts, and these paths answer a short text that says how to build it.
 */
import express, { Router, type Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/ui at the package root (the same relative path from src/ and from dist/). */
export const UI_DIR = fileURLToPath(new URL('../../../dist/ui/', import.meta.url));

export const UI_MISSING = 'The svc web UI is not built here. Run `npm run build` (or `node hack/ui.mjs build`) and reload; the REST API is at /api/v2.\n';

const YEAR_S = 365 * 24 * 3600;

function isApi(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

export function uiRouter(dir: string = UI_DIR): Router {
  const r = Router();
  const index = join(dir, 'index.html');
  r.use('/assets', express.static(join(dir, 'assets'), { index: false, immutable: true, maxAge: YEAR_S * 1000 }));
  // An asset of another build (a page loaded before an upgrade) is gone: a plain 404, not the page.
  r.use('/assets', (_req, res) => void res.status(404).type('text/plain').send('Not found\n'));
  r.use(express.static(dir, { index: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  r.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isApi(req.path)) return next();
    if (!existsSync(index)) return missing(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index, (e) => {
      if (e && !res.headersSent) next(e);
    });
  });
  return r;
}

function missing(res: Response): void {
  res.status(200).type('text/plain').setHeader('Cache-Control', 'no-store');
  res.send(UI_MISSING);
}
