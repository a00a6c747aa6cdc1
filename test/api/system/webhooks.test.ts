/** Webhooks (SPEC 4.7) over real HTTP: management, trigger, tokens, payload, errors. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { err, eventually, TestServer } from '../../helpers/server.js';

let srv: TestServer;
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const trigger = (file: string, token: string | undefined, body?: unknown) =>
  srv.req('POST', `/webhooks/${file}`, body, token === undefined ? {} : bearer(token));

beforeAll(async () => {
  srv = await new TestServer().start();
  srv.dag('hook', 'steps:\n  - name: show\n    command: printf "%s" "$WEBHOOK_PAYLOAD" > "$OUT"\n'.replace('$OUT', join(srv.dir, 'payload-$DAG_RUN_ID.txt')));
  srv.dag('other', 'steps:\n  - command: "true"\n');
  srv.dag('broken', 'steps: 12\n');
});
afterAll(() => srv.stop());

describe('webhook management', () => {
  test('create returns the token once; get and list never show it; stored files hold only its hash', async () => {
    const created = await srv.post('/dags/hook/webhook');
    expect(created.status).toBe(201);
    const { webhook, token } = created.body;
    expect(token).toMatch(/^svc_wh_[A-Za-z0-9_-]{40,}$/);
    expect(webhook).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), dagName: 'hook', tokenPrefix: token.slice(0, 12), enabled: true,
      createdAt: expect.any(String), updatedAt: expect.any(String), createdBy: '', lastUsedAt: '',
    });
    const got = await srv.get('/dags/hook/webhook');
    expect(got.status).toBe(200);
    expect(got.body).toEqual(webhook);
    const list = await srv.get('/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toEqual([webhook]);
    for (const r of [got, list]) expect(r.text).not.toContain(token);
    const stored = await srv.storedRecords('webhooks');
    expect(stored).toContain(webhook.id);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(12));
    expect((await srv.post('/dags/hook/webhook')).status).toBe(409);
    expect((await srv.post('/dags/hook/webhook')).body.code).toBe('already_exists');
  });

  test.each([
    ['GET', '/dags/other/webhook', 404, 'not_found'],
    ['DELETE', '/dags/other/webhook', 404, 'not_found'],
    ['POST', '/dags/other/webhook/regenerate', 404, 'not_found'],
    ['POST', '/dags/other/webhook/toggle', 404, 'not_found'],
    ['POST', '/dags/nope/webhook', 404, 'not_found'],
    ['GET', '/dags/..%2Fetc/webhook', 400, 'bad_request'],
    ['POST', '/dags/a%00b/webhook', 400, 'bad_request'],
    ['POST', '/dags/a.b/webhook', 400, 'bad_request'],
    ['DELETE', `/dags/${'x'.repeat(300)}/webhook`, 400, 'bad_request'],
    ['POST', '/webhooks/..%2F..%2Fhook', 400, 'bad_request'],
  ])('%s %s -> %i %s', async (method, path, status, code) => {
    const r = await srv.req(method, path, method === 'POST' ? { enabled: true } : undefined);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject(err(code));
  });

  test.each([
    [{}, 'missing'], [{ enabled: 'yes' }, 'string'], [{ enabled: 1 }, 'number'], ['not json', 'bad JSON'],
  ])('toggle with %p (%s) -> 400', async (body) => {
    const r = await srv.req('POST', '/dags/hook/webhook/toggle', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });
});

describe('trigger', () => {
  let token: string;
  beforeAll(async () => {
    await srv.req('DELETE', '/dags/other/webhook');
    token = (await srv.post('/dags/other/webhook')).body.token;
  });

  test('starts a run with the payload in WEBHOOK_PAYLOAD and marks the webhook used', async () => {
    const tok = (await srv.post('/dags/hook/webhook/regenerate')).body.token as string;
    const payload = { ref: 'main', n: 3, nested: { quote: 'it\'s "x"' } };
    const r = await trigger('hook', tok, { payload, dagRunId: 'wh-1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'wh-1', dagName: 'hook' });
    const file = join(srv.dir, 'payload-wh-1.txt');
    const text = await eventually(async () => readFileSync(file, 'utf8') || undefined, 'the step to write the payload');
    expect(JSON.parse(text)).toEqual(payload);
    expect((await srv.get('/dags/hook/webhook')).body.lastUsedAt).not.toBe('');
  });

  test('the run is a webhook run of the DAG, visible in the runs API', async () => {
    const r = await trigger('other', token, { dagRunId: 'visible-1' });
    expect(r.status).toBe(200);
    const run = await eventually(async () => {
      const d = await srv.get('/dag-runs/other/visible-1');
      return d.status === 200 && d.body.dagRun?.statusLabel === 'succeeded' ? d.body.dagRun : undefined;
    }, 'the webhook run to succeed');
    expect(run).toMatchObject({ name: 'other', dagRunId: 'visible-1', status: 4 });
  });

  test('an existing dagRunId is 409 already_exists (idempotency), also when another trigger made it', async () => {
    await trigger('other', token, { dagRunId: 'same-id' });
    const again = await trigger('other', token, { dagRunId: 'same-id' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_exists');
    expect((await srv.post('/dags/other/start', { dagRunId: 'started-by-api' })).status).toBe(200);
    expect((await trigger('other', token, { dagRunId: 'started-by-api' })).status).toBe(409);
  });

  test('no body, empty object and no payload all start a run', async () => {
    for (const body of [undefined, {}]) {
      const r = await trigger('other', token, body);
      expect(r.status).toBe(200);
      expect(r.body.dagRunId).toEqual(expect.any(String));
    }
  });

  test.each([
    ['no Authorization', undefined, 401, 'unauthorized'],
    ['a wrong token', 'svc_wh_wrong', 401, 'unauthorized'],
    ['an empty bearer', '', 401, 'unauthorized'],
  ])('%s', async (_what, tok, status, code) => {
    const r = await trigger('other', tok);
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
  });

  test('Basic credentials are not a webhook token', async () => {
    const r = await srv.req('POST', '/webhooks/other', {}, { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` });
    expect(r.status).toBe(401);
  });

  test('a token of another DAG is 401', async () => {
    const hookToken = (await srv.post('/dags/hook/webhook/regenerate')).body.token;
    expect((await trigger('other', hookToken)).status).toBe(401);
  });

  test.each([
    ['an unknown DAG', 'missing'], ['a DAG without webhook', 'broken'], ['a DAG whose webhook has another token', 'hook'],
  ])('a token on %s is 401, the same answer whatever exists (the token is checked first)', async (_what, file) => {
    const r = await trigger(file, token);
    expect({ status: r.status, body: r.body }).toEqual({ status: 401, body: { code: 'unauthorized', message: 'invalid webhook token' } });
  });

  test('a webhook whose DAG was deleted through the API goes with it: 401 for the holder of its token', async () => {
    srv.dag('doomed', 'steps:\n  - command: "true"\n');
    const tok = (await srv.post('/dags/doomed/webhook')).body.token as string;
    expect((await srv.req('DELETE', '/dags/doomed')).status).toBe(204);
    expect((await trigger('doomed', tok)).status).toBe(401);
    expect((await srv.get('/dags/doomed/webhook')).status).toBe(404);
  });

  test('a webhook whose DAG went without the API: 404 once for the holder of its token, then it is gone', async () => {
    srv.dag('vanished', 'steps:\n  - command: "true"\n');
    const tok = (await srv.post('/dags/vanished/webhook')).body.token as string;
    await srv.server.dagStore.delete('vanished');
    const r = await trigger('vanished', tok);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject(err('not_found'));
    srv.dag('vanished', 'steps:\n  - command: "true"\n');
    expect((await trigger('vanished', tok)).status).toBe(401);
  });

  test.each([
    [{ payload: 'text' }], [{ payload: [1, 2] }], [{ payload: 5 }], [{ dagRunId: 7 }], [{ dagRunId: '../x' }],
    [{ dagRunId: 'a'.repeat(65) }], [[1]], ['{bad json'], [{ payload: { big: 'x'.repeat(70_000) } }],
  ])('bad body %p -> 400', async (body) => {
    const r = await trigger('other', token, body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  test('disabled -> 403 until enabled again; a wrong token stays 401', async () => {
    const off = await srv.post('/dags/other/webhook/toggle', { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    expect((await trigger('other', token)).status).toBe(403);
    expect((await trigger('other', token)).body.code).toBe('forbidden');
    expect((await trigger('other', 'svc_wh_wrong')).status).toBe(401);
    expect((await srv.post('/dags/other/webhook/toggle', { enabled: true })).body.enabled).toBe(true);
    expect((await trigger('other', token)).status).toBe(200);
  });

  test('regenerate invalidates the old token at once', async () => {
    const r = await srv.post('/dags/other/webhook/regenerate');
    expect(r.status).toBe(200);
    expect(r.body.token).not.toBe(token);
    expect(r.body.webhook.tokenPrefix).toBe(r.body.token.slice(0, 12));
    expect((await trigger('other', token)).status).toBe(401);
    expect((await trigger('other', r.body.token)).status).toBe(200);
    token = r.body.token;
  });

  test('a DAG with errors is 400 and starts nothing', async () => {
    const tok = (await srv.post('/dags/broken/webhook')).body.token;
    const r = await trigger('broken', tok);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  test('delete removes the webhook and its token', async () => {
    const r = await srv.req('DELETE', '/dags/other/webhook');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await trigger('other', token)).status).toBe(401);
    expect((await srv.get('/dags/other/webhook')).status).toBe(404);
  });
});
