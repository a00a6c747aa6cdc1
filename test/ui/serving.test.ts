/**
 * The UI at the server root (src/main/server/ui.ts): hashed assets cached for a year, index.html for
 * client-side routes, the API's own JSON 404s, and a short text when the UI is not built.
 */
import express from 'express';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UI_MISSING, uiRouter } from '../../src/main/server/ui.js';
import { TestServer } from '../helpers/server.js';

function serve(dir: string): Promise<{ url: string; server: Server }> {
  const app = express();
  app.use('/api/v2', (_req, res) => void res.status(404).json({ code: 'not_found', message: 'api' }));
  app.use(uiRouter(dir));
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }));
  });
}

describe('a built UI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ui-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>svc</title>');
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
  let s: { url: string; server: Server };
  beforeAll(async () => { s = await serve(dir); });
  afterAll(() => new Promise<void>((r) => s.server.close(() => r())));

  test.each(['/', '/dags', '/dags/hello', '/dag-runs/hello/01abc?step=greet'])('GET %s is index.html, not cached', async (path) => {
    const res = await fetch(s.url + path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toContain('<title>svc</title>');
  });

  test('a hashed asset is cached for a year, immutable', async () => {
    const res = await fetch(`${s.url}/assets/index-AbC123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  test('a missing asset is a 404, not the page', async () => {
    const res = await fetch(`${s.url}/assets/index-gone.js`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  test('the API answers its own paths', async () => {
    const res = await fetch(`${s.url}/api/v2/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'not_found', message: 'api' });
  });

  test('a POST outside the API is not the page', async () => {
    expect((await fetch(`${s.url}/dags`, { method: 'POST' })).status).toBe(404);
  });
});

describe('no built UI', () => {
  let s: { url: string; server: Server };
  beforeAll(async () => { s = await serve(join(tmpdir(), 'svc-ui-never-built')); });
  afterAll(() => new Promise<void>((r) => s.server.close(() => r())));

  test('/ says how to build it, in plain text', async () => {
    const res = await fetch(`${s.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(UI_MISSING);
  });
});

describe('svc server', () => {
  const t = new TestServer();
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  test('serves the UI (or how to build it) at /, and the API keeps its JSON 404s', async () => {
    const root = await fetch(`${t.url}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toMatch(/^text\/(html|plain)/);
    const api = await t.get('/no-such-route');
    expect(api.status).toBe(404);
    expect(api.body).toEqual({ code: 'not_found', message: expect.any(String) });
    const v1 = await fetch(`${t.url}/api/v1/dags`);
    expect(v1.status).toBe(404);
    expect(v1.headers.get('content-type')).toMatch(/json/);
  });
});
