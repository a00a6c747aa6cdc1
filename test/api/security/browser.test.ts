/**
 * A web page cannot drive a local server (auth off, as `npm start` runs it): a page on another name
 * rebound to the loopback address is refused by Host, a page of another site cannot start, enqueue or
 * dequeue a run (not with a form, not with a body-less POST, not with a link or an image), the UI cannot
 * be framed and runs only its own scripts; the UI's own requests, a script of the same origin, still work.
 */
import { TestServer, eventually } from '../../helpers/server.js';
import { raw } from './raw.js';

const srv = new TestServer({ SVC_ALLOWED_HOSTS: 'svc.test' });
const EVIL = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' };
const runsOf = async (name: string): Promise<string[]> => (await srv.get(`/dag-runs?name=${name}`)).body.dagRuns.map((r: { dagRunId: string }) => r.dagRunId);

beforeAll(async () => {
  srv.dag('hello', 'steps:\n  - name: s\n    command: echo hello\n');
  srv.dag('long', 'maxActiveRuns: 1\nsteps:\n  - name: wait\n    command: sleep 30\n');
  await srv.start();
});
afterAll(() => srv.stop());

describe('Host', () => {
  test('a name this server does not answer is refused, on the API and the UI, before anything runs', async () => {
    const base = srv.url;
    for (const path of ['/api/v2/dags', '/', '/api/v2/health']) {
      const r = await raw(base, 'GET', path, { host: 'evil.example' });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ code: 'forbidden', message: expect.stringContaining('SVC_ALLOWED_HOSTS') });
    }
    const started = await raw(base, 'POST', '/api/v2/dags/hello/start', { host: `evil.example:${new URL(base).port}`, 'content-type': 'application/json' }, '{}');
    expect(started.status).toBe(403);
    expect(await runsOf('hello')).toEqual([]);
  });

  test('the localhost names, the loopback addresses and a configured name are answered', async () => {
    const port = new URL(srv.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `svc.test:${port}`, 'app.localhost']) {
      expect([host, (await raw(srv.url, 'GET', '/api/v2/health', { host })).status]).toEqual([host, 200]);
    }
  });
});

describe('cross-site state changes', () => {
  test('a form-encoded and a body-less POST from another site start nothing', async () => {
    const form = await raw(srv.url, 'POST', '/api/v2/dag-runs', { ...EVIL, 'content-type': 'application/x-www-form-urlencoded' },
      `spec=${encodeURIComponent('steps:\n  - name: s\n    command: echo pwned\n')}&name=pwned`);
    expect(form.status).toBe(403);
    expect(form.body).toEqual({ code: 'forbidden', message: expect.stringContaining('another site') });
    for (const path of ['/api/v2/dag-runs', '/api/v2/dags/hello/start', '/api/v2/dags/hello/enqueue']) {
      const r = await raw(srv.url, 'POST', path, EVIL);
      expect([path, r.status, r.body.code]).toEqual([path, 403, 'forbidden']);
    }
    // A browser that sends no Sec-Fetch-Site still names the page's origin.
    expect((await raw(srv.url, 'POST', '/api/v2/dags/hello/start', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await raw(srv.url, 'POST', '/api/v2/dags/hello/start', { origin: 'null', 'content-type': 'text/plain' }, '{}')).status).toBe(403);
    expect(await runsOf('hello')).toEqual([]);
    expect(await runsOf('pwned')).toEqual([]);
  });

  test('a POST that a form or a link could make (no JSON, no script header) is refused even without Origin', async () => {
    const r = await raw(srv.url, 'POST', '/api/v2/dags/hello/start', {});
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ code: 'bad_request', message: expect.stringContaining('X-Requested-With') });
    const plain = await raw(srv.url, 'POST', '/api/v2/dags/hello/start', { 'content-type': 'text/plain' }, '{}');
    expect(plain.status).toBe(415);
    expect(await runsOf('hello')).toEqual([]);
  });

  test('the dequeue GET: refused from another site and from a link; a script of this origin dequeues', async () => {
    expect((await srv.post('/dags/long/start', { dagRunId: 'long-1' })).status).toBe(200);
    expect((await srv.post('/dags/long/enqueue', { dagRunId: 'long-q' })).status).toBe(200);
    await eventually(async () => (await srv.get('/dag-runs/long/long-q')).body.dagRun?.statusLabel === 'queued', 'long-q queued');
    const img = await raw(srv.url, 'GET', '/api/v2/dag-runs/long/long-q/dequeue', { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image' });
    expect(img.status).toBe(403);
    const head = await raw(srv.url, 'HEAD', '/api/v2/dag-runs/long/long-q/dequeue', { 'sec-fetch-site': 'cross-site' });
    expect(head.status).toBe(403);
    const link = await raw(srv.url, 'GET', '/api/v2/dag-runs/long/long-q/dequeue', { 'sec-fetch-site': 'none' });
    expect(link.status).toBe(400);
    expect((await srv.get('/dag-runs/long/long-q')).body.dagRun.statusLabel).toBe('queued');
    const own = await raw(srv.url, 'GET', '/api/v2/dag-runs/long/long-q/dequeue', { origin: srv.url, 'sec-fetch-site': 'same-origin', 'x-requested-with': 'svc-ui' });
    expect(own.status).toBe(200);
    expect((await srv.get('/dag-runs/long/long-q')).body.dagRun.statusLabel).toBe('aborted');
    await srv.post('/dag-runs/long/long-1/stop');
  });

  test('the UI\'s own requests (same origin, script header) and a JSON client start runs', async () => {
    const ui = await raw(srv.url, 'POST', '/api/v2/dags/hello/start', { origin: srv.url, 'sec-fetch-site': 'same-origin', 'x-requested-with': 'svc-ui' });
    expect(ui.status).toBe(200);
    const json = await raw(srv.url, 'POST', '/api/v2/dags/hello/start', { 'content-type': 'application/json' }, '{"dagRunId":"json-1"}');
    expect(json.status).toBe(200);
    expect(await runsOf('hello')).toEqual(expect.arrayContaining([ui.body.dagRunId, 'json-1']));
  });

  test('a webhook stays callable by another site\'s service (its token guards it)', async () => {
    const r = await raw(srv.url, 'POST', '/api/v2/webhooks/hello', { ...EVIL, 'content-type': 'application/json' }, '{}');
    expect(r.status).not.toBe(403);
  });
});

describe('the UI page', () => {
  test('cannot be framed, and runs only the server\'s own scripts', async () => {
    for (const path of ['/', '/dags/hello', '/api/v2/dags']) {
      const r = await raw(srv.url, 'GET', path);
      expect(r.status).toBe(200);
      expect(r.headers['x-frame-options']).toBe('DENY');
      const csp = String(r.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
