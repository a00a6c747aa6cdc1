/** SPEC 4.5 over real HTTP: list filters, detail, stop, retry, reschedule, dequeue, step status. */
import { err, eventually, nodeOf, runsServer, waitRun } from './helpers.js';

const srv = runsServer();
beforeAll(async () => {
  srv.dag('ok', 'tags: [env=prod, team=a]\nsteps:\n  - name: one\n    command: echo one\n  - name: two\n    command: echo two\n');
  srv.dag('other', 'tags: [env=dev]\nsteps:\n  - name: x\n    command: "true"\n');
  // The working directory is named: on the kubernetes backend a Dag has no directory of its own.
  srv.dag('flaky', `workingDir: ${srv.dagsDir}\nsteps:\n  - name: first\n    command: echo first >> flaky.count\n  - name: second\n    command: test -f flaky.ok\n  - name: third\n    command: echo third\n`);
  srv.dag('long', 'steps:\n  - name: wait\n    command: sleep 20\n');
  srv.dag('params', 'params: [WHO=nobody]\nsteps:\n  - name: s\n    command: echo "$WHO"\n    output: WHO_OUT\n');
  await srv.start();
  await srv.post('/dags/ok/start', { dagRunId: 'ok-1' });
  await waitRun(srv, 'ok', 'ok-1', 'succeeded');
  await srv.post('/dags/other/start', { dagRunId: 'other-1' });
  await waitRun(srv, 'other', 'other-1', 'succeeded');
});
afterAll(() => srv.stop());

describe('GET /dag-runs', () => {
  const ids = async (q: string) => (await srv.get(`/dag-runs${q}`)).body.dagRuns.map((r: any) => r.dagRunId).sort();

  test('all root runs (summaries), newest first, no pagination', async () => {
    const r = await srv.get('/dag-runs');
    expect(r.status).toBe(200);
    expect(r.body.dagRuns.map((x: any) => x.dagRunId)).toEqual(expect.arrayContaining(['ok-1', 'other-1']));
    expect(Object.keys(r.body.dagRuns[0]).sort()).toEqual([
      'dagRunId', 'finishedAt', 'log', 'name', 'params', 'parentDAGRunId', 'parentDAGRunName', 'queuedAt', 'rootDAGRunId', 'rootDAGRunName', 'startedAt', 'status', 'statusLabel',
    ]);
  });

  test.each([
    ['?name=ok', ['ok-1']],
    ['?name=nosuch', []],
    ['?status=4&name=other', ['other-1']],
    ['?status=2&name=ok', []],
    ['?dagRunId=ok-', ['ok-1']],
    ['?tags=env=prod', ['ok-1']],
    ['?tags=env=d*', ['other-1']],
    ['?tags=team,!missing', ['ok-1']],
    ['?fromDate=0&name=ok', ['ok-1']],
    [`?fromDate=${Math.floor(Date.now() / 1000) + 3600}&name=ok`, []],
    [`?toDate=${Math.floor(Date.now() / 1000) - 3600}&name=ok`, []],
  ])('filter %s', async (q, expected) => {
    expect(await ids(q)).toEqual(expect.arrayContaining(expected));
    if (expected.length === 0) expect(await ids(q)).toEqual([]);
  });

  test.each([
    ['status out of range', '?status=9'],
    ['status not a number', '?status=x'],
    ['fromDate negative', '?fromDate=-1'],
    ['toDate not a number', '?toDate=yesterday'],
    ['name traversal', '?name=..%2Fx'],
    ['name repeated', '?name=a&name=b'],
    ['bad tag filter', '?tags=a=b=c%20d'],
  ])('400 bad_request: %s', async (_name, q) => {
    const r = await srv.get(`/dag-runs${q}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
  });
});

describe('GET /dag-runs/{name}/{dagRunId}', () => {
  test('200 {dagRun: detail with nodes}; latest is the newest run', async () => {
    const r = await srv.get('/dag-runs/ok/ok-1');
    expect(r.status).toBe(200);
    expect(r.body.dagRun).toMatchObject({ dagRunId: 'ok-1', name: 'ok', statusLabel: 'succeeded' });
    expect(r.body.dagRun.nodes.map((n: any) => n.step.name)).toEqual(['one', 'two']);
    expect((await srv.get('/dag-runs/ok/latest')).body.dagRun.dagRunId).toBe('ok-1');
  });

  test.each([
    ['unknown run', '/dag-runs/ok/nope', 404, 'not_found'],
    ['unknown DAG', '/dag-runs/nodag/latest', 404, 'not_found'],
    ['traversal in name', '/dag-runs/..%2F..%2Fetc/x', 400, 'bad_request'],
    ['traversal in id', '/dag-runs/ok/..%2F..', 400, 'bad_request'],
    ['NUL in id', '/dag-runs/ok/a%00b', 400, 'bad_request'],
    ['name too long', `/dag-runs/${'n'.repeat(41)}/x`, 400, 'bad_request'],
  ])('%s', async (_name, path, status, code) => {
    const r = await srv.get(path);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject(err(code));
  });
});

describe('POST stop', () => {
  test('200 stops a running run (aborted); 400 not_running once it ended; 404 unknown', async () => {
    await srv.post('/dags/long/start', { dagRunId: 'long-1' });
    await eventually(async () => nodeOf((await srv.get('/dag-runs/long/long-1')).body.dagRun, 'wait').statusLabel === 'running', 'step running');
    const r = await srv.post('/dag-runs/long/long-1/stop');
    expect(r.status).toBe(200);
    await waitRun(srv, 'long', 'long-1', 'aborted');
    const again = await srv.post('/dag-runs/long/long-1/stop');
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject(err('not_running'));
    expect((await srv.post('/dag-runs/long/nope/stop')).body).toMatchObject(err('not_found'));
    expect((await srv.post('/dag-runs/a%2Fb/x/stop')).status).toBe(400);
  });
});

describe('POST retry', () => {
  test('same id: a new attempt re-runs the failed step and downstream, keeps succeeded ones', async () => {
    await srv.post('/dags/flaky/start', { dagRunId: 'fl-1' });
    await waitRun(srv, 'flaky', 'fl-1', 'failed');
    const { writeFileSync } = await import('node:fs'); // the step tests a file in its working dir
    writeFileSync(`${srv.dagsDir}/flaky.ok`, '');
    const r = await srv.post('/dag-runs/flaky/fl-1/retry', { dagRunId: 'fl-1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'fl-1' });
    const run = await waitRun(srv, 'flaky', 'fl-1', 'succeeded');
    expect(nodeOf(run, 'third').statusLabel).toBe('succeeded');
    const { readFileSync, unlinkSync } = await import('node:fs');
    expect(readFileSync(`${srv.dagsDir}/flaky.count`, 'utf8')).toBe('first\n');
    unlinkSync(`${srv.dagsDir}/flaky.ok`);
  });

  test('another dagRunId: a new run with that id keeps the succeeded steps; the old run is unchanged', async () => {
    await srv.post('/dags/flaky/start', { dagRunId: 'fl-2' });
    await waitRun(srv, 'flaky', 'fl-2', 'failed');
    const r = await srv.post('/dag-runs/flaky/fl-2/retry', { dagRunId: 'fl-2b' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'fl-2b' });
    const copy = await waitRun(srv, 'flaky', 'fl-2b', 'failed');
    expect(nodeOf(copy, 'first').statusLabel).toBe('succeeded');
    expect((await srv.get('/dag-runs/flaky/fl-2')).body.dagRun.statusLabel).toBe('failed');
    const taken = await srv.post('/dag-runs/flaky/fl-2/retry', { dagRunId: 'fl-2b' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject(err('already_exists'));
  });

  test('stepName: re-runs only that step', async () => {
    const r = await srv.post('/dag-runs/ok/ok-1/retry', { stepName: 'two' });
    expect(r.status).toBe(200);
    const run = await waitRun(srv, 'ok', 'ok-1', 'succeeded');
    expect(nodeOf(run, 'two').statusLabel).toBe('succeeded');
    expect((await srv.post('/dag-runs/ok/ok-1/retry', { stepName: 'nope' })).body).toMatchObject(err('not_found'));
  });

  test('400 already_running while the run is active; 404 unknown; 400 bad input', async () => {
    await srv.post('/dags/long/start', { dagRunId: 'long-2' });
    const r = await srv.post('/dag-runs/long/long-2/retry', {});
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('already_running'));
    await srv.post('/dag-runs/long/long-2/stop');
    expect((await srv.post('/dag-runs/long/nope/retry', {})).status).toBe(404);
    expect((await srv.post('/dag-runs/ok/ok-1/retry', { dagRunId: 5 })).status).toBe(400);
    expect((await srv.post('/dag-runs/ok/ok-1/retry', { dagRunId: '../x' })).status).toBe(400);
    expect((await srv.post('/dag-runs/ok/ok-1/retry', { stepName: 'a\u0000' })).status).toBe(400);
    await waitRun(srv, 'long', 'long-2', 'aborted');
  });
});

describe('POST reschedule', () => {
  test('200 {dagRunId, queued}: a new run with the historic params and definition snapshot', async () => {
    await srv.post('/dags/params/start', { dagRunId: 'p-1', params: 'WHO=alice' });
    await waitRun(srv, 'params', 'p-1', 'succeeded');
    srv.dag('params', 'steps:\n  - name: changed\n    command: echo changed\n'); // the file changes; the snapshot does not
    const r = await srv.post('/dag-runs/params/p-1/reschedule', { dagRunId: 'p-2' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'p-2', queued: false });
    const run = await waitRun(srv, 'params', 'p-2', 'succeeded');
    expect(run.params).toBe('WHO=alice');
    expect(nodeOf(run, 's').output).toBe('alice');
  });

  test('dagName override; generated id when none is given', async () => {
    const r = await srv.post('/dag-runs/params/p-1/reschedule', { dagName: 'params-copy' });
    expect(r.status).toBe(200);
    await waitRun(srv, 'params-copy', r.body.dagRunId, 'succeeded');
  });

  test('409 max_run_reached while a run of the DAG is active (always singleton); 404 unknown', async () => {
    await srv.post('/dags/long/start', { dagRunId: 'long-3' });
    const r = await srv.post('/dag-runs/long/long-1/reschedule', {});
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject(err('max_run_reached'));
    await srv.post('/dag-runs/long/long-3/stop');
    expect((await srv.post('/dag-runs/long/nope/reschedule', {})).status).toBe(404);
    expect((await srv.post('/dag-runs/ok/ok-1/reschedule', { dagName: 'a/b' })).status).toBe(400);
    await waitRun(srv, 'long', 'long-3', 'aborted');
  });
});

describe('GET dequeue', () => {
  // It changes state: only a script's request (X-Requested-With) may make it (test/api/security/browser.test.ts).
  const dequeue = (path: string) => srv.req('GET', path, undefined, { 'x-requested-with': 'test' });
  test('a queued run leaves the queue (aborted, never runs); 404 when not queued', async () => {
    await srv.post('/dags/long/start', { dagRunId: 'long-4' });
    await srv.post('/dags/long/enqueue', { dagRunId: 'long-q' });
    expect((await srv.get('/dag-runs/long/long-q')).body.dagRun.statusLabel).toBe('queued');
    const r = await dequeue('/dag-runs/long/long-q/dequeue');
    expect(r.status).toBe(200);
    const run = (await srv.get('/dag-runs/long/long-q')).body.dagRun;
    expect(run.statusLabel).toBe('aborted');
    expect(run.nodes.every((n: any) => n.statusLabel === 'not_started')).toBe(true);
    expect((await dequeue('/dag-runs/long/long-q/dequeue')).body).toMatchObject(err('not_found'));
    expect((await dequeue('/dag-runs/long/long-4/dequeue')).status).toBe(404);
    expect((await dequeue('/dag-runs/long/nope/dequeue')).status).toBe(404);
    await srv.post('/dag-runs/long/long-4/stop');
    await waitRun(srv, 'long', 'long-4', 'aborted');
  });
});

describe('PATCH /dag-runs/{name}/{dagRunId}/steps/{stepName}/status', () => {
  test('sets a step status (0-5) of a finished run and recomputes the run status', async () => {
    const r = await srv.req('PATCH', '/dag-runs/other/other-1/steps/x/status', { status: 2 });
    expect(r.status).toBe(200);
    expect(nodeOf(r.body.dagRun, 'x').statusLabel).toBe('failed');
    expect(r.body.dagRun.statusLabel).toBe('failed');
    const back = await srv.req('PATCH', '/dag-runs/other/other-1/steps/x/status', { status: 4 });
    expect(back.body.dagRun.statusLabel).toBe('succeeded');
  });

  test.each([
    ['status 6', { status: 6 }, 400, 'bad_request'],
    ['status -1', { status: -1 }, 400, 'bad_request'],
    ['status missing', {}, 400, 'bad_request'],
    ['status a string', { status: '4' }, 400, 'bad_request'],
  ])('%s', async (_name, b, status, code) => {
    const r = await srv.req('PATCH', '/dag-runs/other/other-1/steps/x/status', b);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject(err(code));
  });

  test.each([
    ['unknown step', '/dag-runs/other/other-1/steps/nope/status', 404],
    ['unknown run', '/dag-runs/other/nope/steps/x/status', 404],
    ['step name with a slash', '/dag-runs/other/other-1/steps/a%2Fb/status', 400],
    ['step name with NUL', '/dag-runs/other/other-1/steps/a%00/status', 400],
  ])('%s', async (_name, path, status) => {
    expect((await srv.req('PATCH', path, { status: 4 })).status).toBe(status);
  });

  test('400 while the run is running', async () => {
    await srv.post('/dags/long/start', { dagRunId: 'long-5' });
    const r = await srv.req('PATCH', '/dag-runs/long/long-5/steps/wait/status', { status: 4 });
    expect(r.status).toBe(400);
    await srv.post('/dag-runs/long/long-5/stop');
    await waitRun(srv, 'long', 'long-5', 'aborted');
  });
});
