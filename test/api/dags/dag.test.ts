/** One DAG: detail, delete, spec get/put, rename, suspend, and path checks, over real HTTP. */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from '../../helpers/server.js';

const srv = new TestServer();
beforeAll(() => srv.start());
afterAll(() => srv.stop());

const full = `# keep this comment
name: full-dag
description: every field
schedule:
  start: "0 8 * * *"
  stop: "0 18 * * *"
delaySec: 3
histRetentionDays: 7
maxActiveRuns: 2
maxActiveSteps: 3
params: "X=1"
preconditions:
  - condition: "test -d /"
handlerOn:
  success:
    command: echo ok
smtp:
  host: mail
  password: hunter2
steps:
  - name: first
    command: echo one
  - name: second
    command: echo two
---
name: child
steps:
  - command: echo child
`;

describe('GET /dags/{fileName}', () => {
  test('the DAG detail of SPEC 2.8: definition in camelCase, localDags, latestDAGRun, suspended, errors', async () => {
    srv.dag('full', full);
    const r = await srv.get('/dags/full');
    expect(r.status).toBe(200);
    expect(r.body.dag).toMatchObject({
      name: 'full-dag', description: 'every field', delay: 3, histRetentionDays: 7, maxActiveRuns: 2, maxActiveSteps: 3,
      schedule: [{ expression: '0 8 * * *' }], stopSchedule: [{ expression: '0 18 * * *' }],
      params: ['X'], defaultParams: 'X=1',
      preconditions: [{ condition: 'test -d /' }],
      handlerOn: { success: { name: 'onSuccess' } },
      steps: [{ name: 'first', commands: ['echo one'] }, { name: 'second', depends: ['first'] }],
    });
    expect(r.body.dag.smtp.password).toBe('*****');
    expect(JSON.stringify(r.body)).not.toContain('hunter2');
    expect(r.body.localDags).toEqual([{ name: 'child', dag: expect.objectContaining({ name: 'child' }), errors: [] }]);
    expect(r.body.latestDAGRun).toMatchObject({ name: 'full-dag', status: 0, statusLabel: 'not_started', dagRunId: '' });
    expect(r.body.suspended).toBe(false);
    expect(r.body.errors).toEqual([]);
  });

  test('a DAG with problems still answers 200 with its errors', async () => {
    srv.dag('badyaml', 'steps: [\n');
    const r = await srv.get('/dags/badyaml');
    expect(r.status).toBe(200);
    expect(r.body.errors.length).toBeGreaterThan(0);
    expect(r.body.dag.name).toBe('badyaml');
  });

  test('404 not_found for an unknown DAG', async () => {
    const r = await srv.get('/dags/nope');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'not_found', message: expect.stringContaining('nope') });
  });
});

describe('GET/PUT /dags/{fileName}/spec', () => {
  test('GET returns the text as written, comments included', async () => {
    srv.dag('full', full);
    const r = await srv.get('/dags/full/spec');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dag: { name: 'full-dag' }, spec: full, errors: [] });
  });

  test('PUT saves the text as written and returns no errors', async () => {
    srv.dag('edit', 'steps:\n  - command: echo a\n');
    const spec = '# new version\nsteps:\n  - command: echo b # inline\n';
    const r = await srv.req('PUT', '/dags/edit/spec', { spec });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ errors: [] });
    expect((await srv.get('/dags/edit/spec')).body.spec).toBe(spec);
    expect(await srv.storedDag('edit')).toBe(spec);
    expect((await srv.get('/dags/edit')).body.dag.steps[0].commands).toEqual(['echo b']);
  });

  test.each([
    ['an unknown dependency', 'steps:\n  - name: a\n    depends: [ghost]\n    command: echo\n', /ghost/],
    ['an unknown key', 'steps:\n  - name: a\n    command: echo\n    bogus: 1\n', /bogus/],
    ['broken YAML', 'steps: [\n', /./],
  ])('PUT with %s: 200 with the errors, and nothing saved: the working DAG stays as it was (as the reference)', async (_w, spec, problem) => {
    const working = 'steps:\n  - command: echo a\n';
    srv.dag('edit2', working);
    const r = await srv.req('PUT', '/dags/edit2/spec', { spec });
    expect(r.status).toBe(200);
    expect(r.body.errors.length).toBeGreaterThan(0);
    expect(r.body.errors.join()).toMatch(problem);
    expect(await srv.storedDag('edit2')).toBe(working);
    expect((await srv.get('/dags/edit2/spec')).body).toEqual({ dag: { name: 'edit2' }, spec: working, errors: [] });
  });

  test('PUT of an invalid spec on an unknown DAG: 404, nothing created', async () => {
    const r = await srv.req('PUT', '/dags/ghost2/spec', { spec: 'steps: 12\n' });
    expect(r.status).toBe(404);
    expect(await srv.storedDag('ghost2')).toBeUndefined();
  });

  test.each([
    ['missing spec', {}],
    ['spec not a string', { spec: ['x'] }],
    ['oversize spec', { spec: `#${'x'.repeat(600 * 1024)}\n` }],
  ])('PUT 400 bad_request: %s (nothing saved)', async (_w, body) => {
    srv.dag('edit3', 'steps: []\n');
    const r = await srv.req('PUT', '/dags/edit3/spec', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(await srv.storedDag('edit3')).toBe('steps: []\n');
  });

  test('PUT bad JSON: 400; unknown DAG: 404 and no file created', async () => {
    srv.dag('edit4', 'steps: []\n');
    expect((await srv.req('PUT', '/dags/edit4/spec', '{oops')).body.code).toBe('bad_request');
    const r = await srv.req('PUT', '/dags/ghost/spec', { spec: 'steps: []\n' });
    expect(r.status).toBe(404);
    expect(await srv.storedDag('ghost')).toBeUndefined();
  });

  test('GET spec of an unknown DAG: 404', async () => {
    expect((await srv.get('/dags/ghost/spec')).status).toBe(404);
  });
});

describe('DELETE /dags/{fileName}', () => {
  test('204, then 404', async () => {
    srv.dag('doomed', 'steps: []\n');
    const r = await srv.req('DELETE', '/dags/doomed');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(await srv.storedDag('doomed')).toBeUndefined();
    expect((await srv.get('/dags/doomed')).status).toBe(404);
    const again = await srv.req('DELETE', '/dags/doomed');
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('not_found');
  });
});

describe('POST /dags/{fileName}/rename', () => {
  test('200; the file moves, the old name is gone, the text is unchanged', async () => {
    srv.dag('old', '# c\nsteps: []\n');
    const r = await srv.post('/dags/old/rename', { newFileName: 'renamed' });
    expect(r.status).toBe(200);
    expect((await srv.get('/dags/old')).status).toBe(404);
    expect((await srv.get('/dags/renamed/spec')).body.spec).toBe('# c\nsteps: []\n');
    expect((await srv.get('/dags/renamed')).body.dag.name).toBe('renamed');
  });

  test('409 already_exists when the new name is taken (nothing changes)', async () => {
    srv.dag('r1', 'steps: []\n');
    srv.dag('r2', 'description: two\nsteps: []\n');
    const r = await srv.post('/dags/r1/rename', { newFileName: 'r2' });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('already_exists');
    expect((await srv.get('/dags/r2')).body.dag.description).toBe('two');
    expect((await srv.get('/dags/r1')).status).toBe(200);
  });

  test.each([
    ['missing newFileName', {}], ['not a string', { newFileName: 7 }], ['traversal', { newFileName: '../x' }],
    ['slash', { newFileName: 'a/b' }], ['dot', { newFileName: 'a.yaml' }], ['too long', { newFileName: 'n'.repeat(41) }],
    ['same name', { newFileName: 'r3' }], ['reserved', { newFileName: 'tags' }], ['NUL', { newFileName: 'a\u0000' }],
  ])('400 bad_request: %s', async (_w, body) => {
    srv.dag('r3', 'steps: []\n');
    const r = await srv.post('/dags/r3/rename', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect((await srv.get('/dags/r3')).status).toBe(200);
  });

  test('unknown DAG: 404', async () => {
    expect((await srv.post('/dags/ghost/rename', { newFileName: 'other' })).status).toBe(404);
  });
});

describe('POST /dags/{fileName}/suspend', () => {
  test('200 with an empty body; the flag shows in detail and list; false resumes', async () => {
    srv.dag('sus', 'steps: []\n');
    const r = await srv.post('/dags/sus/suspend', { suspend: true });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect((await srv.get('/dags/sus')).body.suspended).toBe(true);
    expect((await srv.get('/dags?name=sus')).body.dags[0].suspended).toBe(true);
    await srv.post('/dags/sus/suspend', { suspend: false });
    expect((await srv.get('/dags/sus')).body.suspended).toBe(false);
  });

  test('404 not_found for an unknown DAG', async () => {
    const r = await srv.post('/dags/ghost/suspend', { suspend: true });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  test.each([['missing', {}], ['string', { suspend: 'true' }], ['number', { suspend: 1 }], ['null', { suspend: null }]])(
    '400 bad_request when suspend is %s', async (_w, body) => {
      srv.dag('sus2', 'steps: []\n');
      const r = await srv.post('/dags/sus2/suspend', body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
    });
});

describe('fileName in the path: traversal and bad names are refused, nothing outside the DAGs directory is touched', () => {
  const outside = () => join(srv.dir, 'secret.yaml');
  beforeAll(() => writeFileSync(outside(), 'steps: []\n'));

  test.each([
    ['GET', '/dags/..%2Fsecret'], ['GET', '/dags/..%2Fsecret/spec'], ['DELETE', '/dags/..%2Fsecret'],
    ['PUT', '/dags/..%2Fsecret/spec'], ['POST', '/dags/..%2Fsecret/rename'], ['POST', '/dags/..%2Fsecret/suspend'],
    ['GET', '/dags/a%00b'], ['GET', '/dags/a.yaml'], ['GET', '/dags/%2e%2e%2fsecret'], ['GET', '/dags/x{201}'],
    ['GET', '/dags/..%2Fsecret/dag-runs'], ['POST', '/dags/..%2Fsecret/stop-all'], ['GET', '/dags/..%2F..%2Fetc%2Fpasswd'],
  ])('%s %s -> 400 bad_request', async (method, shown) => {
    const path = shown.replace('x{201}', 'x'.repeat(201));
    const r = await srv.req(method, path, method === 'GET' || method === 'DELETE' ? undefined : { spec: 'x', newFileName: 'y', suspend: true });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(readFileSync(outside(), 'utf8')).toBe('steps: []\n');
  });

  test('a slash splits the path: no such route, 404, and nothing touched', async () => {
    const r = await srv.req('DELETE', '/dags/a/b');
    expect(r.status).toBe(404);
    expect(existsSync(outside())).toBe(true);
    expect(readdirSync(srv.dir)).toContain('secret.yaml');
  });
});
