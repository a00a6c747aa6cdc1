/**
 * The web terminal (SPEC 5.2 terminal.enabled; docs/api.md "Web terminal") against the real server on a
 * loopback port, with a real WebSocket client: off by default and then refused; admin only; a shell on a
 * pseudo-terminal that runs commands, resizes, sees the steps' environment and the DAGs directory; the
 * socket closing, or the server stopping, ends the shell and what it started; start and end audited.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect as tcp } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';
import { eventually, TestServer, type Reply } from '../../helpers/server.js';
import { Contract } from '../contract/contract.js';
import { ADMIN_PASSWORD, bearer, builtinServer, expectError, login, userWithRole } from '../auth/harness.js';

interface Terminal {
  ws: WebSocket;
  /** Everything the terminal wrote so far. */
  output(): string;
  /** Waits until the output matches, and returns the match. */
  waitFor(re: RegExp): Promise<RegExpMatchArray>;
  type(text: string): void;
  controls: Array<Record<string, unknown>>;
  closed: Promise<number>;
}

interface Refusal { status: number; body: { code: string; message: string } }

function wsUrl(srv: TestServer, query: string): string {
  return `${srv.url.replace(/^http/, 'ws')}/api/v2/terminal/session?${query}`;
}

/** Opens the WebSocket; a refused upgrade resolves to its status and error body. */
/** `origin` null: no Origin header, as a client that is not a browser may send. */
function connect(srv: TestServer, query: string, origin: string | null = srv.url): Promise<Terminal | Refusal> {
  const ws = new WebSocket(wsUrl(srv, query), origin === null ? {} : { origin });
  let out = '';
  const controls: Array<Record<string, unknown>> = [];
  ws.on('message', (data, isBinary) => {
    if (isBinary) out += String(data);
    else controls.push(JSON.parse(String(data)) as Record<string, unknown>);
  });
  const closed = new Promise<number>((res) => ws.once('close', (code) => res(code)));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({
      ws, controls, closed, output: () => out,
      waitFor: (re) => eventually(async () => out.match(re) ?? undefined, `${re} in the terminal; it shows ${JSON.stringify(out.slice(-300))}`, 10_000),
      type: (text) => ws.send(Buffer.from(text)),
    }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += String(c); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as Refusal['body'] }));
    });
    ws.once('error', reject);
  });
}

async function open(srv: TestServer, token: string, query = ''): Promise<Terminal> {
  const t = await srv.req('POST', '/terminal/tickets', {}, bearer(token));
  expect(t.status).toBe(201);
  const term = await connect(srv, `ticket=${encodeURIComponent(t.body.ticket as string)}${query}`);
  if ('status' in term) throw new Error(`the terminal was refused: ${term.status} ${JSON.stringify(term.body)}`);
  return term;
}

const alive = (pid: number): boolean => {
  try { process.kill(pid, 0); return true; } catch { return false; }
};

function auditLines(srv: TestServer): Array<Record<string, any>> {
  const dir = join(srv.dataDir, 'audit');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').trim().split('\n').filter(Boolean)).map((l) => JSON.parse(l) as Record<string, any>);
}

describe('terminal.enabled off (the default)', () => {
  const srv = builtinServer();
  let admin: string;
  beforeAll(async () => {
    await srv.start();
    admin = await login(srv, 'admin', ADMIN_PASSWORD);
  });
  afterAll(() => srv.stop());

  test('an admin gets no ticket and no WebSocket: 404 not_found naming the setting', async () => {
    expect((await srv.req('GET', '/terminal', undefined, bearer(admin))).body).toEqual({ enabled: false, reason: expect.stringMatching(/SVC_TERMINAL_ENABLED/) });
    const t = await srv.req('POST', '/terminal/tickets', {}, bearer(admin));
    expectError(t, 404, 'not_found');
    expect(t.body.message).toMatch(/SVC_TERMINAL_ENABLED=true/);
    expect((await Contract.load(srv)).problems('POST', '/terminal/tickets', t)).toEqual([]);
    expect(await connect(srv, 'ticket=anything')).toEqual({ status: 404, body: { code: 'not_found', message: expect.stringMatching(/off/) } });
  });
});

test('with authentication off the terminal opens for nobody, even when turned on', async () => {
  const srv = await new TestServer({ SVC_TERMINAL_ENABLED: 'true' }).start();
  try {
    expect((await srv.get('/terminal')).body).toEqual({ enabled: false, reason: expect.stringMatching(/authentication/) });
    expectError(await srv.post('/terminal/tickets'), 403, 'forbidden');
    expect(await connect(srv, 'ticket=x')).toMatchObject({ status: 403, body: { code: 'forbidden' } });
  } finally {
    await srv.stop();
  }
});

describe('terminal.enabled on, builtin authentication', () => {
  const srv = builtinServer({ SVC_TERMINAL_ENABLED: 'true', SVC_TEST_NOT_FOR_SHELLS: 'hidden-value', SVC_AUTH_TOKEN: 'static-terminal-token' });
  let admin: string;
  let viewer: string;
  beforeAll(async () => {
    await srv.start();
    admin = await login(srv, 'admin', ADMIN_PASSWORD);
    viewer = (await userWithRole(srv, admin, 'vera', 'viewer')).token;
  });
  afterAll(() => srv.stop());

  test('below admin: 403 forbidden for the status and the ticket; no ticket, no terminal', async () => {
    expectError(await srv.req('GET', '/terminal', undefined, bearer(viewer)), 403, 'forbidden');
    expectError(await srv.req('POST', '/terminal/tickets', {}, bearer(viewer)), 403, 'forbidden');
    expectError(await srv.req('POST', '/terminal/tickets', {}), 401, 'unauthorized');
    expect(await connect(srv, '')).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    expect(await connect(srv, 'ticket=made-up')).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
  });

  test('a ticket is good once, and only from a page of this server (Origin)', async () => {
    const ticket = async () => encodeURIComponent((await srv.req('POST', '/terminal/tickets', {}, bearer(admin))).body.ticket as string);
    expect(await connect(srv, `ticket=${await ticket()}`, 'https://evil.example')).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(await connect(srv, `ticket=${await ticket()}`, null)).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    const once = await ticket();
    const first = await connect(srv, `ticket=${once}`);
    expect('ws' in first).toBe(true);
    expect(await connect(srv, `ticket=${once}`)).toMatchObject({ status: 401, body: { code: 'unauthorized' } });
    (first as Terminal).ws.close();
  });

  test('an admin runs commands in the DAGs directory, with the environment steps get', async () => {
    expect((await srv.req('GET', '/terminal', undefined, bearer(admin))).body).toEqual({ enabled: true });
    const t = await open(srv, admin);
    // The command is echoed as typed: look for what only running it prints.
    t.type('echo "hel""lo from $(pwd)"; echo "[$SVC_TEST_NOT_FOR_SHELLS|$SVC_AUTH_TOKEN|$TERM]"\n');
    await t.waitFor(new RegExp(`hello from ${srv.dagsDir}`));
    // SVC_ variables pass as they do to steps (SPEC 2.7); SVC_AUTH_* secrets never do.
    await t.waitFor(/\[hidden-value\|\|xterm-256color\]/);
    t.ws.close();
  });

  test('the terminal starts at the asked size and follows resize messages', async () => {
    const t = await open(srv, admin, '&cols=91&rows=33');
    t.type('stty size\n');
    await t.waitFor(/33 91/);
    t.ws.send(JSON.stringify({ type: 'resize', cols: 120, rows: 40 }));
    t.ws.send(JSON.stringify({ type: 'resize', cols: 0, rows: 40 }));
    await eventually(async () => t.controls.find((c) => c.type === 'error'), 'the error message of a bad resize');
    expect(t.controls.find((c) => c.type === 'error')).toMatchObject({ code: 'bad_request' });
    t.type('stty size\n');
    await t.waitFor(/40 120/);
    t.ws.close();
  });

  test('closing the socket kills the shell and what it started; start and end are audited, keystrokes never', async () => {
    const t = await open(srv, admin);
    t.type('sleep 1000 & echo "pids:$$:$!:"\n');
    const [, shell, job] = (await t.waitFor(/pids:(\d+):(\d+):/)).map(Number);
    expect(alive(shell!) && alive(job!)).toBe(true);
    t.ws.close();
    await eventually(async () => !alive(shell!) && !alive(job!), 'the shell and its job to end');
    const lines = await eventually(async () => {
      const l = auditLines(srv).filter((x) => x.action === 'terminal.end' && x.details.pid === shell);
      return l.length > 0 && auditLines(srv);
    }, 'the end of the session in the audit trail');
    const start = lines.find((l) => l.action === 'terminal.start' && l.details.pid === shell);
    const end = lines.find((l) => l.action === 'terminal.end' && l.details.pid === shell);
    expect(start).toMatchObject({ actor: 'admin', target: 'terminal', outcome: 'success', source: expect.stringMatching(/127\.0\.0\.1/) });
    expect(end).toMatchObject({ actor: 'admin', outcome: 'success', details: { durationMs: expect.any(Number) } });
    expect(lines.some((l) => l.action === 'terminal.start' && l.outcome === 'failure' && l.details.status === 401)).toBe(true);
    expect(JSON.stringify(lines)).not.toMatch(/sleep|hel""lo|stty/);
  });

  test('the shell exiting closes the socket with its exit code', async () => {
    const t = await open(srv, admin);
    t.type('exit 3\n');
    expect(await t.closed).toBe(1000);
    expect(t.controls).toContainEqual({ type: 'exit', code: 3 });
  });

  test('the HTTP answers and the refused upgrades are as api/openapi.yaml documents them', async () => {
    const c = await Contract.load(srv);
    const asAdmin = bearer(admin);
    const replies: Array<[string, string, Reply]> = [
      ['GET', '/terminal', await srv.req('GET', '/terminal', undefined, asAdmin)],
      ['POST', '/terminal/tickets', await srv.req('POST', '/terminal/tickets', {}, asAdmin)],
      ['POST', '/terminal/tickets', await srv.req('POST', '/terminal/tickets', {}, bearer(viewer))],
      ['GET', '/terminal/session', await srv.req('GET', '/terminal/session')],
    ];
    for (const origin of ['https://evil.example', srv.url]) {
      const r = await connect(srv, 'ticket=made-up', origin) as Refusal;
      replies.push(['GET', '/terminal/session', { status: r.status, body: r.body, text: JSON.stringify(r.body), headers: new Headers({ 'content-type': 'application/json' }) }]);
    }
    expect(replies.map(([, , r]) => r.status)).toEqual([200, 201, 403, 400, 403, 401]);
    expect(replies.flatMap(([m, p, r]) => c.problems(m, p, r))).toEqual([]);
  });

  test('a malformed upgrade is a 400, and a client resetting mid-upgrade leaves the server up', async () => {
    const { hostname, port } = new URL(srv.url);
    const raw = (target: string, reset: boolean) => new Promise<string>((resolve) => {
      const s = tcp(Number(port), hostname, () => {
        s.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`);
        if (reset) s.resetAndDestroy();
      });
      let answer = '';
      s.on('data', (c) => { answer += String(c); });
      s.on('close', () => resolve(answer));
      s.on('error', () => resolve(answer));
    });
    expect(await raw('http://[', false)).toMatch(/^HTTP\/1\.1 400 [^]*"code":"bad_request"/);
    await raw('/api/v2/terminal/session?ticket=x', true);
    expect((await srv.get('/health')).status).toBe(200);
  });

  test('a stopping server ends every session', async () => {
    const t = await open(srv, admin);
    t.type('echo "pid:$$:"\n');
    const pid = Number((await t.waitFor(/pid:(\d+):/))[1]);
    await srv.stop();
    expect(await t.closed).toBe(1001);
    await eventually(async () => !alive(pid), 'the shell to end');
  });
});
