/** The http and jq step types through the real embedded engine, against a real HTTP(S) server on loopback. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSteps } from '../helpers/steps.js';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; body: string }

const seen: Seen[] = [];
function handler(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    if (req.url?.startsWith('/missing')) { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('no such thing'); return; }
    if (req.url?.startsWith('/slow')) { setTimeout(() => res.end('late'), 5_000).unref(); return; }
    res.writeHead(200, { 'content-type': 'application/json', 'x-answer': '42' });
    res.end(JSON.stringify({ method: req.method, path: req.url, user: { name: 'ada', id: 7 } }));
  });
}

let http: Server;
let https: Server;
let base = '';
let secure = '';
const listen = (s: Server): Promise<number> => new Promise((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  http = createHttp(handler);
  https = createHttps({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, handler);
  base = `http://127.0.0.1:${await listen(http)}`;
  secure = `https://127.0.0.1:${await listen(https)}`;
});
afterAll(() => { http.closeAllConnections(); https.closeAllConnections(); http.close(); https.close(); });
beforeEach(() => { seen.length = 0; });

describe('http steps', () => {
  test('method, headers, query and a JSON body reach the server; silent output is the body, captured for later steps', async () => {
    const r = await runSteps(`
params:
  - WHO: ada
env:
  - TOKEN: t-123
steps:
  - name: post
    type: http
    command: POST ${base}/users
    config:
      headers:
        Authorization: Bearer \${TOKEN}
      query:
        who: \${WHO}
        n: 2
      body:
        name: \${WHO}
        admin: true
      silent: true
    output: USER
  - name: use
    command: echo "\${USER.user.name}-\${USER.user.id}"
    output: NAME
`);
    expect(r.status).toBe('succeeded');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/users?who=ada&n=2', body: '{"name":"ada","admin":true}' });
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer t-123', 'content-type': 'application/json' });
    expect(await r.log('post')).toBe('{"method":"POST","path":"/users?who=ada&n=2","user":{"name":"ada","id":7}}');
    expect(await r.outputs()).toMatchObject({ name: 'ada-7' });
  });

  test('without silent the status line and headers come first; a string body is sent as written', async () => {
    const r = await runSteps(`
steps:
  - name: put
    type: http
    command: put ${base}/items/1
    config:
      body: 'plain text'
      headers: { Content-Type: text/plain }
`);
    expect(r.status).toBe('succeeded');
    expect(seen[0]).toMatchObject({ method: 'PUT', body: 'plain text' });
    const out = await r.log('put');
    expect(out).toMatch(/^HTTP\/1\.1 200 OK\n/);
    expect(out).toMatch(/\nx-answer: 42\n/i);
    expect(out).toMatch(/\n\n\{"method":"PUT"/);
  });

  test('a status of 400 or more fails the step with the status; the body is in its log', async () => {
    const r = await runSteps(`
steps:
  - name: get
    type: http
    command: GET ${base}/missing
    config: { silent: true }
`);
    expect(r.status).toBe('failed');
    expect(r.node('get').error).toBe('http status 404 Not Found');
    expect(await r.log('get')).toBe('no such thing');
  });

  test('config.timeout ends a slow request with a clear error; retryPolicy retries it', async () => {
    const r = await runSteps(`
steps:
  - name: slow
    type: http
    command: GET ${base}/slow
    config: { timeout: 0.3 }
    retryPolicy: { limit: 1, intervalSec: 0 }
`);
    expect(r.status).toBe('failed');
    expect(r.node('slow').error).toContain('no response within 0.3s');
    expect(r.node('slow').retryCount).toBe(1);
    expect(seen.filter((s) => s.url === '/slow')).toHaveLength(2);
  });

  test('the step timeout stops a request at once', async () => {
    const t = Date.now();
    const r = await runSteps(`
steps:
  - name: slow
    type: http
    command: GET ${base}/slow
    timeoutSec: 1
`);
    expect(r.status).toBe('failed');
    expect(r.node('slow').error).toContain('timed out after 1s');
    expect(Date.now() - t).toBeLessThan(4_500);
  });

  test('TLS: a self-signed certificate is refused unless skipTLSVerify', async () => {
    const r = await runSteps(`
type: graph
steps:
  - name: strict
    type: http
    command: GET ${secure}/x
  - name: lax
    type: http
    command: GET ${secure}/x
    config: { skipTLSVerify: true, silent: true }
`);
    expect(r.node('strict').error).toMatch(/self[- ]signed/i);
    expect(await r.log('lax')).toContain('"path":"/x"');
  });

  test('bad commands and connection failures are step errors; secrets are masked in errors and logs', async () => {
    const r = await runSteps(`
type: graph
env:
  - EMPTY: ''
secrets:
  - name: API_KEY
    provider: env
    key: SVC_TEST_API_KEY
steps:
  - name: nomethod
    type: http
    command: FETCH ${base}/
  - name: nourl
    type: http
    command: GET \${EMPTY}
  - name: refused
    type: http
    command: GET http://127.0.0.1:1/\${API_KEY}
  - name: echoes
    type: http
    command: GET ${base}/\${API_KEY}
    config: { silent: true }
`, { env: { SVC_TEST_API_KEY: 'k-very-secret' } });
    expect(r.node('nomethod').error).toContain('unknown method "FETCH"');
    expect(r.node('nourl').error).toContain('command must be "<METHOD> <url>"');
    expect(r.node('refused').error).toContain('ECONNREFUSED');
    expect(r.node('refused').error).not.toContain('k-very-secret');
    expect(seen.some((s) => s.url === '/k-very-secret')).toBe(true);
    expect(await r.log('echoes')).toContain('"path":"/*******"');
  });
});

describe('jq steps', () => {
  const input = JSON.stringify({ items: [{ id: 1, n: 'a' }, { id: 2, n: 'b' }] });

  test('each result on its own line, indented as the reference prints them; raw prints strings bare and values compact', async () => {
    const r = await runSteps(`
type: graph
steps:
  - name: pretty
    type: jq
    command: '.items[] | {id: .id}'
    script: '${input}'
  - name: raw
    type: jq
    command: '.items[].n, .items[0].id, .items'
    script: '${input}'
    config: { raw: true }
    output: RAW
`);
    expect(r.status).toBe('succeeded');
    expect(await r.log('pretty')).toBe('{\n    "id": 1\n}\n{\n    "id": 2\n}\n');
    expect(await r.log('raw')).toBe('a\nb\n1\n[{"id":1,"n":"a"},{"id":2,"n":"b"}]\n');
  });

  test('real jq: functions, variables, reduce; input from an earlier step\'s output', async () => {
    const r = await runSteps(`
steps:
  - name: data
    command: echo '${input}'
    output: DATA
  - name: sum
    type: jq
    command: '(reduce .items[] as $i (0; . + $i.id)) as $s | [.items[] | .n | ascii_upcase] | {s: $s, names: join(",")} | tojson'
    script: \${DATA}
    config: { raw: true }
    output: SUM
`);
    expect(r.status).toBe('succeeded');
    expect(await r.outputs()).toMatchObject({ sum: '{"s":3,"names":"A,B"}' });
  });

  test('a syntax error, an error() and input that is not JSON fail the step with jq\'s message', async () => {
    const r = await runSteps(`
type: graph
steps:
  - name: syntax
    type: jq
    command: '.items['
    script: '{}'
  - name: raised
    type: jq
    command: 'error("boom")'
    script: '{}'
  - name: notjson
    type: jq
    command: '.'
    script: 'not json'
`);
    expect(r.status).toBe('failed');
    expect(r.node('syntax').error).toContain('syntax error');
    expect(r.node('raised').error).toContain('boom');
    expect(r.node('notjson').error).toContain('script is not JSON');
  });
});

describe('the examples', () => {
  test('examples/steps/http.yaml and jq.yaml run to success', async () => {
    const { readFileSync: read } = await import('node:fs');
    const http = await runSteps(read('examples/steps/http.yaml', 'utf8'), { params: `API=${base}` });
    expect(http.status).toBe('succeeded');
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /status?verbose=true', 'POST /reports']);
    const jq = await runSteps(read('examples/steps/jq.yaml', 'utf8'));
    expect(jq.status).toBe('succeeded');
    expect(await jq.log('summary')).toBe('total 127, out of stock ["nut"]\n');
  });
});
