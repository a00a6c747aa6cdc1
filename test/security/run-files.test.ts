/**
 * Attacks on the files of a run, through REST on the embedded server: a step replaces logs, the run log
 * and a directory of its run with links (or a FIFO) to make the API serve, or the engine append to,
 * what they point at; a step writes one huge line to make a one-line page read all of it; a records file
 * with one malformed entry must not lose it on the next write.
 */
import { lstatSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TestServer, eventually, type Reply } from '../helpers/server.js';
import { ADMIN_PASSWORD, CapturingServer, SECRET as TOKEN_SECRET, bearer, builtinServer, login } from '../api/auth/harness.js';

const SECRET = 'TOP-SECRET-4f1c9a';

/** A directory outside the data directory that holds a secret under every name a run file has. */
function secretDir(srv: TestServer): string {
  const dir = join(srv.dir, 'secret');
  mkdirSync(dir, { recursive: true });
  for (const name of ['first.out', 'first.err', 'plant.out', 'plant.err', 'run.log']) writeFileSync(join(dir, name), `${SECRET}\n`);
  writeFileSync(join(dir, 'outputs.json'), JSON.stringify({ metadata: {}, outputs: { LEAK: SECRET } }));
  return dir;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a run detail as the API answers it
async function finished(srv: TestServer, dag: string, id: string): Promise<any> {
  return eventually(async () => {
    const r = await srv.get(`/dag-runs/${dag}/${id}`);
    return r.status === 200 && ['succeeded', 'failed', 'aborted', 'partially_succeeded'].includes(r.body.dagRun.statusLabel) ? r.body.dagRun : undefined;
  }, `${dag}/${id} to finish`);
}

/** Starts a run and waits for it to succeed: the planting step must have done its work. */
async function succeeded(srv: TestServer, dag: string, id: string): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect((await srv.post(`/dags/${dag}/start`, { dagRunId: id })).status).toBe(200);
  const run = await finished(srv, dag, id);
  expect(run.statusLabel).toBe('succeeded');
  return run;
}

/** A GET that must answer (a planted FIFO must not hang it), without a 500 and without the secret. */
async function safeGet(srv: TestServer, path: string): Promise<Reply> {
  const r = await Promise.race([
    srv.get(path),
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`GET ${path} hung`)), 10_000).unref()),
  ]);
  expect(r.status).toBeLessThan(500);
  expect(r.text).not.toContain(SECRET);
  return r;
}

describe('a step plants links in its run directory', () => {
  const srv = new TestServer();
  let secret: string;
  beforeAll(async () => {
    secret = secretDir(srv);
    /** `first` prints; `plant`, after it, runs the script (each line indented into the block scalar). */
    const planting = (script: string[]): string => [
      'steps:', '  - name: first', '    command: echo first-output',
      '  - name: plant', '    depends: [first]', '    script: |', '      d=$(dirname "$DAG_RUN_STEP_STDOUT_FILE")',
      ...script.map((l) => `      ${l}`),
    ].join('\n');
    srv.dag('plant-files', planting([
      `ln -sf "${secret}/first.out" "$d/first.out"`,
      `ln -sf "${secret}/plant.out" "$DAG_RUN_STEP_STDOUT_FILE"`,
      'rm -f "$DAG_RUN_STEP_STDERR_FILE" && mkfifo "$DAG_RUN_STEP_STDERR_FILE"',
      `ln -sf "${secret}/run.log" "$DAG_RUN_LOG_FILE"`,
    ]));
    srv.dag('plant-dir', planting([`mv "$d" "$d.moved" && ln -s "${secret}" "$d"`]));
    await srv.start();
  });
  afterAll(async () => srv.stop());

  test('step logs, the run log and outputs answer without the links\' targets, and nothing is appended to them', async () => {
    const run = await succeeded(srv, 'plant-files', 'f1');
    const plant = (run.nodes as { step: { name: string }; stdout: string }[]).find((n) => n.step.name === 'plant')!;
    expect(lstatSync(plant.stdout as string).isSymbolicLink()).toBe(true);
    expect(lstatSync(run.log as string).isSymbolicLink()).toBe(true);
    for (const q of ['', '?tail=1', '?head=5', '?offset=1&limit=10']) {
      await safeGet(srv, `/dag-runs/plant-files/f1/steps/first/log${q}`);
      await safeGet(srv, `/dag-runs/plant-files/f1/steps/plant/log${q}`);
      await safeGet(srv, `/dag-runs/plant-files/f1/steps/plant/log${q}${q ? '&' : '?'}stream=stderr`);
      await safeGet(srv, `/dag-runs/plant-files/f1/log${q}`);
    }
    // A process the step left behind may replace outputs.json once the run is over.
    const outputs = join(dirname(run.log as string), 'outputs.json');
    try { unlinkSync(outputs); } catch { /* none written */ }
    symlinkSync(join(secret, 'outputs.json'), outputs);
    await safeGet(srv, '/dag-runs/plant-files/f1/outputs');
    await safeGet(srv, '/dag-runs/plant-files/f1');
    for (const name of ['first.out', 'plant.out', 'run.log']) expect(readFileSync(join(secret, name), 'utf8')).toBe(`${SECRET}\n`);
  });

  test('a directory of the run replaced by a link is not followed', async () => {
    const run = await succeeded(srv, 'plant-dir', 'd1');
    expect(lstatSync(dirname(run.nodes[0].stdout as string)).isSymbolicLink()).toBe(true);
    for (const path of ['first/log', 'first/log?tail=1', 'first/log?stream=stderr', 'plant/log', 'plant/log?tail=1&stream=stderr']) {
      await safeGet(srv, `/dag-runs/plant-dir/d1/steps/${path}`);
    }
    expect(readFileSync(join(secret, 'first.out'), 'utf8')).toBe(`${SECRET}\n`);
  });
});

describe('one huge log line', () => {
  const srv = new TestServer();
  beforeAll(async () => {
    srv.dag('huge-line', `
steps:
  - name: print
    script: |
      head -c 67108864 /dev/zero | tr '\\0' x
`);
    await srv.start();
  });
  afterAll(async () => srv.stop());

  test('tail=1, head=1 and a default page answer within the byte budget', async () => {
    await succeeded(srv, 'huge-line', 'h1');
    for (const q of ['?tail=1', '?head=1', '', '?offset=1&limit=1']) {
      const r = await srv.get(`/dag-runs/huge-line/h1/steps/print/log${q}`);
      expect(r.status).toBe(200);
      expect(r.text.length).toBeLessThan(256 * 1024); // first: a failure must not print 64 MB
      expect(r.body.lineCount).toBe(1);
      expect(r.body.content.startsWith('xxxx')).toBe(true);
      expect(r.body.content.endsWith(' [svc: line cut at 65536 bytes]')).toBe(true);
    }
  }, 60_000);
});

describe('records files with an entry of the wrong shape', () => {
  const malformed = { id: 'legacy-1', username: 'legacy', role: 'viewer', note: 'written by hand' };

  test('the users file keeps the entry after a write, and the server reports it', async () => {
    const srv = new CapturingServer({ SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: TOKEN_SECRET, SVC_AUTH_ADMIN_PASSWORD: ADMIN_PASSWORD });
    mkdirSync(join(srv.dataDir, 'auth'), { recursive: true });
    writeFileSync(join(srv.dataDir, 'auth', 'users.json'), JSON.stringify([malformed]));
    await srv.start();
    try {
      const admin = await login(srv, 'admin', ADMIN_PASSWORD);
      const r = await srv.req('POST', '/users', { username: 'alice', password: 'alice-password-1', role: 'viewer' }, bearer(admin));
      expect(r.status).toBe(201);
      const stored = JSON.parse(readFileSync(join(srv.dataDir, 'auth', 'users.json'), 'utf8')) as unknown[];
      expect(stored).toContainEqual(malformed);
      expect(stored.map((u) => (u as { username: string }).username)).toEqual(expect.arrayContaining(['admin', 'alice', 'legacy']));
      expect(srv.logs.some((l) => l.includes('users.json') && l.includes('legacy-1'))).toBe(true);
      expect((await srv.req('POST', '/auth/login', { username: 'legacy', password: 'x' })).status).toBe(401);
    } finally {
      await srv.stop();
    }
  });

  test('the API keys file keeps the entry after a write', async () => {
    const srv = builtinServer();
    mkdirSync(join(srv.dataDir, 'auth'), { recursive: true });
    const bad = { id: 'old-key', name: 'old', keyHash: 7 };
    writeFileSync(join(srv.dataDir, 'auth', 'api-keys.json'), JSON.stringify([bad]));
    await srv.start();
    try {
      const admin = await login(srv, 'admin', ADMIN_PASSWORD);
      expect((await srv.req('POST', '/api-keys', { name: 'ci', role: 'viewer' }, bearer(admin))).status).toBe(201);
      const stored = JSON.parse(readFileSync(join(srv.dataDir, 'auth', 'api-keys.json'), 'utf8')) as unknown[];
      expect(stored).toContainEqual(bad);
      expect(stored).toHaveLength(2);
    } finally {
      await srv.stop();
    }
  });
});
