/** SPEC 4.5 logs, outputs and sub-DAG runs over real HTTP. */
import { err, runsServer, waitRun } from './helpers.js';

const srv = runsServer();
const lines = (n: number, p = 'line') => Array.from({ length: n }, (_, i) => `${p} ${i + 1}`);

beforeAll(async () => {
  srv.dag('talk', [
    'steps:',
    '  - name: many',
    '    command: for i in $(seq 1 25); do echo "line $i"; done; for i in 1 2 3; do echo "err $i" >&2; done',
    '  - name: out',
    '    command: echo 42',
    '    output: THE_ANSWER',
    '  - name: quiet',
    '    command: "true"',
  ].join('\n'));
  srv.dag('silent', 'steps:\n  - name: s\n    command: "true"\n');
  srv.dag('parent', [
    'steps:',
    '  - name: call-child',
    '    call: child',
    '    params: "X=1"',
    '---',
    'name: child',
    'params: [X=0]',
    'steps:',
    '  - name: inner',
    '    command: echo "x=$X"',
  ].join('\n'));
  await srv.start();
  await srv.post('/dags/talk/start', { dagRunId: 't1' });
  await srv.post('/dags/silent/start', { dagRunId: 's1' });
  await srv.post('/dags/parent/start', { dagRunId: 'p1' });
  await waitRun(srv, 'talk', 't1', 'succeeded');
  await waitRun(srv, 'silent', 's1', 'succeeded');
  await waitRun(srv, 'parent', 'p1', 'succeeded');
});
afterAll(() => srv.stop());

describe('GET .../steps/{stepName}/log', () => {
  const base = '/dag-runs/talk/t1/steps/many/log';
  test.each([
    ['default: stdout, whole log', '', { content: lines(25).join('\n'), lineCount: 25, totalLines: 25, hasMore: false, isEstimate: false }],
    ['head', '?head=2', { content: 'line 1\nline 2', lineCount: 2, totalLines: 25, hasMore: true }],
    ['tail', '?tail=3', { content: lines(25).slice(-3).join('\n'), lineCount: 3, totalLines: 25, hasMore: true }],
    ['offset (1-based) and limit', '?offset=10&limit=2', { content: 'line 10\nline 11', lineCount: 2, hasMore: true }],
    ['limit alone', '?limit=5', { content: lines(5).join('\n'), lineCount: 5, hasMore: true }],
    ['stderr', '?stream=stderr', { content: 'err 1\nerr 2\nerr 3', lineCount: 3, totalLines: 3 }],
    ['explicit stdout', '?stream=stdout&tail=1', { content: 'line 25', lineCount: 1 }],
  ])('%s', async (_name, q, expected) => {
    const r = await srv.get(`${base}${q}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject(expected);
  });

  test('a step without output gives an empty page', async () => {
    expect((await srv.get('/dag-runs/talk/t1/steps/quiet/log')).body).toEqual({ content: '', lineCount: 0, totalLines: 0, hasMore: false, isEstimate: false });
  });

  test('latest works as the run id', async () => {
    expect((await srv.get('/dag-runs/talk/latest/steps/out/log')).body.content).toBe('42');
  });

  test.each([
    ['limit over 10000', '?limit=10001'],
    ['limit 0', '?limit=0'],
    ['offset 0 (1-based)', '?offset=0'],
    ['head negative', '?head=-1'],
    ['tail not a number', '?tail=abc'],
    ['head and tail together', '?head=1&tail=1'],
    ['unknown stream', '?stream=both'],
    ['stream repeated', '?stream=stdout&stream=stderr'],
  ])('400 bad_request: %s', async (_name, q) => {
    const r = await srv.get(`${base}${q}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
  });

  test.each([
    ['unknown step', '/dag-runs/talk/t1/steps/nope/log', 404],
    ['unknown run', '/dag-runs/talk/nope/steps/many/log', 404],
    ['unknown DAG', '/dag-runs/nodag/t1/steps/many/log', 404],
    ['traversal in step name', '/dag-runs/talk/t1/steps/..%2F..%2Fstatus.json/log', 400],
    ['traversal in run id', '/dag-runs/talk/..%2F..%2Fx/steps/many/log', 400],
  ])('%s', async (_name, path, status) => {
    expect((await srv.get(path)).status).toBe(status);
  });
});

describe('GET .../log (run log)', () => {
  test('the run log file as a log page', async () => {
    const r = await srv.get('/dag-runs/talk/t1/log');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ lineCount: expect.any(Number), totalLines: expect.any(Number), hasMore: false, isEstimate: false });
    expect(r.body.content).toMatch(/ run running\n/);
    expect(r.body.content).toMatch(/ step many succeeded\n/);
    expect(r.body.content).toMatch(/ step many succeeded\n[\s\S]* run succeeded$/);
    const last = (await srv.get('/dag-runs/talk/t1/log?tail=1')).body;
    expect(last.lineCount).toBe(1);
    expect(last.content).toMatch(/ run succeeded$/);
  });

  test('404 unknown run; 400 bad query', async () => {
    expect((await srv.get('/dag-runs/talk/nope/log')).body).toMatchObject(err('not_found'));
    expect((await srv.get('/dag-runs/talk/t1/log?limit=99999')).status).toBe(400);
  });
});

describe('GET .../outputs', () => {
  test('{metadata, outputs} of a completed run', async () => {
    const r = await srv.get('/dag-runs/talk/t1/outputs');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      metadata: { dagName: 'talk', dagRunId: 't1', attemptId: expect.any(String), status: 'succeeded', completedAt: expect.any(String), params: expect.any(String) },
      outputs: { theAnswer: '42' },
    });
  });

  test('a run without outputs: empty metadata strings, completedAt 0001-01-01T00:00:00Z, empty map', async () => {
    const r = await srv.get('/dag-runs/silent/s1/outputs');
    expect(r.body).toEqual({
      metadata: { dagName: '', dagRunId: '', attemptId: '', status: '', completedAt: '0001-01-01T00:00:00Z', params: '' },
      outputs: {},
    });
  });

  test('404 names the missing run and DAG', async () => {
    const r = await srv.get('/dag-runs/talk/ghost/outputs');
    expect(r.status).toBe(404);
    expect(r.body.message).toMatch(/ghost.*talk/);
    expect((await srv.get('/dag-runs/a%2Fb/x/outputs')).status).toBe(400);
  });
});

describe('sub-DAG runs', () => {
  test('GET .../sub-dag-runs lists the children with their step', async () => {
    const r = await srv.get('/dag-runs/parent/p1/sub-dag-runs');
    expect(r.status).toBe(200);
    expect(r.body.subRuns).toHaveLength(1);
    expect(r.body.subRuns[0]).toMatchObject({ name: 'child', stepName: 'call-child', statusLabel: 'succeeded', parentDAGRunId: 'p1', rootDAGRunId: 'p1', params: 'X=1' });
  });

  test('GET .../sub-dag-runs/{id}/spec: the definition the child ran with, as YAML and data', async () => {
    const id = (await srv.get('/dag-runs/parent/p1/sub-dag-runs')).body.subRuns[0].dagRunId;
    const r = await srv.get(`/dag-runs/parent/p1/sub-dag-runs/${id}/spec`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ dagRunId: id, name: 'child', dag: { name: 'child' } });
    expect(r.body.spec).toContain('name: child');
    expect(r.body.spec).toContain('echo "x=$X"');
    // the child is a run of its own
    expect((await srv.get(`/dag-runs/child/${id}`)).body.dagRun.parentDAGRunName).toBe('parent');
  });

  test('404 for a run that is not a child of this run; 400 invalid id', async () => {
    expect((await srv.get('/dag-runs/parent/p1/sub-dag-runs/t1/spec')).status).toBe(404);
    expect((await srv.get('/dag-runs/parent/nope/sub-dag-runs')).status).toBe(404);
    expect((await srv.get('/dag-runs/parent/p1/sub-dag-runs/..%2Fx/spec')).status).toBe(400);
    expect((await srv.get('/dag-runs/talk/t1/sub-dag-runs')).body).toEqual({ subRuns: [] });
  });
});
