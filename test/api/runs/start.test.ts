/** SPEC 4.4 over real HTTP: start, start-sync, enqueue, inline runs, dagName override, singleton. */
import { err, eventually, nodeOf, runsServer, waitRun } from './helpers.js';

const srv = runsServer();
beforeAll(async () => {
  srv.dag('hello', 'params: NAME=world\nsteps:\n  - name: greet\n    command: echo "hello $NAME"\n    output: GREETING\n');
  srv.dag('slow', 'steps:\n  - name: wait\n    command: sleep 1.5\n');
  srv.dag('broken', 'steps:\n  - name: a\n    depends: [nope]\n    command: echo\n');
  srv.dag('failing', 'steps:\n  - name: boom\n    command: exit 3\n');
  await srv.start();
});
afterAll(() => srv.stop());

describe('POST /dags/{fileName}/start', () => {
  test('200 {dagRunId}; the run is driven in the background with the given params', async () => {
    const r = await srv.post('/dags/hello/start', { params: 'NAME=svc', dagRunId: 'start-1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'start-1' });
    const run = await waitRun(srv, 'hello', 'start-1', 'succeeded');
    expect(run.params).toBe('NAME=svc');
    expect(nodeOf(run, 'greet').output).toBe('hello svc');
  });

  test('generates a run id when none (or an empty one) is given', async () => {
    const r = await srv.post('/dags/hello/start', { dagRunId: '' });
    expect(r.status).toBe(200);
    expect(r.body.dagRunId).toMatch(/^[0-9a-f]{28}$/);
  });

  test('dagName override: identity for history (listed and fetched under the new name)', async () => {
    const r = await srv.post('/dags/hello/start', { dagName: 'hello-copy', dagRunId: 'ovr-1' });
    expect(r.status).toBe(200);
    const run = await waitRun(srv, 'hello-copy', 'ovr-1', 'succeeded');
    expect(run.name).toBe('hello-copy');
    expect((await srv.get('/dag-runs/hello/ovr-1')).status).toBe(404);
    const list = await srv.get('/dag-runs?name=hello-copy');
    expect(list.body.dagRuns.map((x: any) => x.dagRunId)).toEqual(['ovr-1']);
  });

  test('singleton: 409 already_running while a run of the DAG is active; allowed again after it ends', async () => {
    expect((await srv.post('/dags/slow/start', { dagRunId: 'single-1' })).status).toBe(200);
    const second = await srv.post('/dags/slow/start', { singleton: true });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject(err('already_running'));
    // without singleton a second run starts (direct start ignores maxActiveRuns, reference 2)
    expect((await srv.post('/dags/slow/start', { dagRunId: 'single-2' })).status).toBe(200);
    await waitRun(srv, 'slow', 'single-1', 'succeeded');
    await waitRun(srv, 'slow', 'single-2', 'succeeded');
    expect((await srv.post('/dags/slow/start', { singleton: true, dagRunId: 'single-3' })).status).toBe(200);
    await waitRun(srv, 'slow', 'single-3', 'succeeded');
  });

  test('409 already_exists when the run id is taken', async () => {
    await srv.post('/dags/hello/start', { dagRunId: 'dup-1' });
    const r = await srv.post('/dags/hello/start', { dagRunId: 'dup-1' });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject(err('already_exists'));
  });

  test.each([
    ['params not a string', { params: 42 }],
    ['params too long', { params: 'x'.repeat(100_001) }],
    ['dagRunId not a string', { dagRunId: 7 }],
    ['dagRunId traversal', { dagRunId: '../../etc' }],
    ['dagRunId with a slash', { dagRunId: 'a/b' }],
    ['dagRunId too long', { dagRunId: 'x'.repeat(65) }],
    ['dagRunId latest', { dagRunId: 'latest' }],
    ['dagName too long', { dagName: 'x'.repeat(41) }],
    ['dagName traversal', { dagName: '..' }],
    ['dagName with a slash', { dagName: 'a/b' }],
    ['dagName not a string', { dagName: ['x'] }],
    ['singleton not a boolean', { singleton: 'yes' }],
    ['body not an object', [1, 2]],
  ])('400 bad_request: %s', async (_name, b) => {
    const r = await srv.post('/dags/hello/start', b);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
  });

  test.each([
    ['unknown DAG', '/dags/nope/start', 404, 'not_found'],
    ['invalid DAG file', '/dags/broken/start', 400, 'bad_request'],
    ['encoded traversal', '/dags/..%2F..%2Fetc/start', 400, 'bad_request'],
    ['encoded NUL', '/dags/a%00b/start', 400, 'bad_request'],
    ['dot in fileName', '/dags/a.b/start', 400, 'bad_request'],
  ])('%s', async (_name, path, status, code) => {
    const r = await srv.post(path, {});
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject(err(code));
  });

  test('bad JSON is 400 bad_request', async () => {
    const r = await srv.req('POST', '/dags/hello/start', '{"params": ');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
  });

  /** A body as bytes: fetch sends no Content-Type for them unless one is given. */
  const send = (path: string, text: string, headers: Record<string, string> = {}) =>
    fetch(`${srv.url}/api/v2${path}`, { method: 'POST', body: new TextEncoder().encode(text), headers });

  test.each([
    ['no Content-Type', {}, /a body but no Content-Type/],
    ['Content-Type text/plain', { 'content-type': 'text/plain' }, /Content-Type text\/plain is not JSON/],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, /Content-Type application\/x-www-form-urlencoded is not JSON/],
  ])('a body with %s is refused with 415, never ignored: nothing starts', async (_what, headers, message) => {
    const r = await send('/dags/hello/start', JSON.stringify({ dagRunId: 'untyped-1', params: 'NAME=x' }), headers);
    expect(r.status).toBe(415);
    const body = await r.json();
    expect(body).toEqual({ code: 'bad_request', message: expect.stringMatching(message) });
    expect(body.message).toContain('application/json');
    expect((await srv.get('/dag-runs/hello/untyped-1')).status).toBe(404);
  });

  test('no body at all needs a script\'s header, no Content-Type (the DAG starts with its defaults)', async () => {
    const refused = await srv.req('POST', '/dags/hello/start');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('X-Requested-With');
    const r = await srv.req('POST', '/dags/hello/start', undefined, { 'x-requested-with': 'test' });
    expect(r.status).toBe(200);
    expect(r.body.dagRunId).toEqual(expect.any(String));
  });

  test.each([['null'], ['5'], ['"text"'], ['[1]']])('%s is JSON but not an object: 400 saying so', async (text) => {
    const r = await srv.req('POST', '/dags/hello/start', text);
    expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: { code: 'bad_request', message: expect.stringMatching(/^the request body must be a JSON object, got /) } });
  });
});

describe('POST /dags/{fileName}/start-sync', () => {
  test('200 {dagRun: detail with nodes} when the run finishes', async () => {
    const r = await srv.post('/dags/hello/start-sync', { timeout: 30, dagRunId: 'sync-1' });
    expect(r.status).toBe(200);
    expect(r.body.dagRun).toMatchObject({ dagRunId: 'sync-1', name: 'hello', status: 4, statusLabel: 'succeeded' });
    expect(nodeOf(r.body.dagRun, 'greet')).toMatchObject({ status: 4, output: 'hello world' });
  });

  test('a failed run is still 200 with its detail', async () => {
    const r = await srv.post('/dags/failing/start-sync', { timeout: 30 });
    expect(r.status).toBe(200);
    expect(r.body.dagRun.statusLabel).toBe('failed');
  });

  test('408 {code: timeout, message, dagRunId} while the run continues in the background', async () => {
    const r = await srv.post('/dags/slow/start-sync', { timeout: 1, dagRunId: 'sync-slow' });
    expect(r.status).toBe(408);
    expect(r.body).toEqual({ code: 'timeout', message: expect.any(String), dagRunId: 'sync-slow' });
    await waitRun(srv, 'slow', 'sync-slow', 'succeeded');
  });

  test('409 already_exists under singleton while a run is active', async () => {
    await srv.post('/dags/slow/start', { dagRunId: 'sync-busy' });
    const r = await srv.post('/dags/slow/start-sync', { timeout: 5, singleton: true });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject(err('already_exists'));
    await waitRun(srv, 'slow', 'sync-busy', 'succeeded');
  });

  test.each([
    ['missing timeout', {}],
    ['timeout 0', { timeout: 0 }],
    ['timeout 86401', { timeout: 86_401 }],
    ['timeout not an integer', { timeout: 1.5 }],
    ['timeout as a string', { timeout: '10' }],
  ])('400 bad_request: %s', async (_name, b) => {
    const r = await srv.post('/dags/hello/start-sync', b);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
  });

  test('404 for an unknown DAG', async () => {
    expect((await srv.post('/dags/nope/start-sync', { timeout: 1 })).status).toBe(404);
  });
});

describe('POST /dags/{fileName}/enqueue', () => {
  test('200 {dagRunId}; the run is queued (5) with queuedAt, then started by the queue', async () => {
    const r = await srv.post('/dags/hello/enqueue', { dagRunId: 'enq-1', params: 'NAME=queue' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'enq-1' });
    const run = await waitRun(srv, 'hello', 'enq-1', 'succeeded');
    expect(run.queuedAt).not.toBe('');
    expect(nodeOf(run, 'greet').output).toBe('hello queue');
  });

  test('singleton: 409 when a run is active or queued', async () => {
    await srv.post('/dags/slow/start', { dagRunId: 'enq-busy' });
    const r = await srv.post('/dags/slow/enqueue', { singleton: true });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject(err('already_running'));
    await waitRun(srv, 'slow', 'enq-busy', 'succeeded');
  });

  test.each([
    ['queue not a string', { queue: 1 }],
    ['queue with a slash', { queue: 'a/b' }],
    ['queue too long', { queue: 'q'.repeat(65) }],
    ['dagRunId invalid', { dagRunId: '-x' }],
  ])('400 bad_request: %s', async (_name, b) => {
    const r = await srv.post('/dags/hello/enqueue', b);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
  });

  test('404 for an unknown DAG', async () => {
    expect((await srv.post('/dags/nope/enqueue', {})).body).toMatchObject(err('not_found'));
  });
});

describe('POST /dag-runs and /dag-runs/enqueue (inline spec, no stored file)', () => {
  const spec = 'name: inline-one\nsteps:\n  - name: s\n    command: echo inline\n    output: OUT\n';

  test('200 {dagRunId}; no DAG file is stored', async () => {
    const r = await srv.post('/dag-runs', { spec, dagRunId: 'inl-1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'inl-1' });
    const run = await waitRun(srv, 'inline-one', 'inl-1', 'succeeded');
    expect(nodeOf(run, 's').output).toBe('inline');
    expect((await srv.get('/dags/inline-one')).status).toBe(404);
  });

  test('name is used when the spec has none', async () => {
    const r = await srv.post('/dag-runs', { spec: 'steps:\n  - echo hi\n', name: 'named-inline', params: 'A=1' });
    expect(r.status).toBe(200);
    const run = await waitRun(srv, 'named-inline', r.body.dagRunId, 'succeeded');
    expect(run.params).toBe('A=1');
  });

  test('409 max_run_reached while maxActiveRuns (default 1) is reached, or under singleton', async () => {
    const slow = 'name: inline-slow\nsteps:\n  - sleep 1.5\n';
    expect((await srv.post('/dag-runs', { spec: slow, dagRunId: 'inl-slow' })).status).toBe(200);
    const blocked = await srv.post('/dag-runs', { spec: slow });
    expect(blocked.status).toBe(409);
    expect(blocked.body).toMatchObject(err('max_run_reached'));
    const wide = 'name: inline-wide\nmaxActiveRuns: 3\nsteps:\n  - sleep 1.5\n';
    expect((await srv.post('/dag-runs', { spec: wide })).status).toBe(200);
    expect((await srv.post('/dag-runs', { spec: wide })).status).toBe(200);
    expect((await srv.post('/dag-runs', { spec: wide, singleton: true })).body).toMatchObject(err('max_run_reached'));
    const queuedBlocked = await srv.post('/dag-runs/enqueue', { spec: slow });
    expect(queuedBlocked.status).toBe(409);
    expect(queuedBlocked.body).toMatchObject(err('max_run_reached'));
    await waitRun(srv, 'inline-slow', 'inl-slow', 'succeeded');
  });

  test('/dag-runs/enqueue queues the run (queuedAt set) and the queue starts it', async () => {
    const r = await srv.post('/dag-runs/enqueue', { spec: 'name: inline-q\nsteps:\n  - echo queued\n', dagRunId: 'inq-1' });
    expect(r.status).toBe(200);
    const run = await waitRun(srv, 'inline-q', 'inq-1', 'succeeded');
    expect(run.queuedAt).not.toBe('');
  });

  test.each([
    ['/dag-runs', 'spec missing', {}],
    ['/dag-runs', 'spec empty', { spec: '   ' }],
    ['/dag-runs', 'spec not a string', { spec: { steps: [] } }],
    ['/dag-runs', 'invalid spec', { spec: 'steps:\n  - name: a\n    depends: [x]\n    command: echo\n' }],
    ['/dag-runs', 'yaml syntax', { spec: 'steps: [' }],
    ['/dag-runs', 'no name anywhere', { spec: 'steps:\n  - echo hi\n' }],
    ['/dag-runs', 'invalid name', { spec: 'steps:\n  - echo hi\n', name: '../x' }],
    ['/dag-runs', 'spec too large', { spec: `name: big\nsteps:\n  - echo ${'x'.repeat(1_000_001)}\n` }],
    ['/dag-runs', 'dagRunId invalid', { spec, dagRunId: 'a/b' }],
    ['/dag-runs/enqueue', 'spec missing', {}],
    ['/dag-runs/enqueue', 'queue invalid', { spec, queue: '../q' }],
  ])('400 bad_request %s: %s', async (path, _name, b) => {
    const r = await srv.post(path, b);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
  });

  test('the errors of an invalid spec are listed in details', async () => {
    const r = await srv.post('/dag-runs', { spec: 'steps:\n  - name: a\n    depends: [x]\n    command: echo\n', name: 'bad-inline' });
    expect(r.body.details.errors.length).toBeGreaterThan(0);
  });

  test('every run started here eventually ends (nothing left running)', async () => {
    await eventually(async () => {
      const r = await srv.get('/dag-runs?status=1');
      return r.body.dagRuns.length === 0;
    }, 'no running runs');
  });
});
