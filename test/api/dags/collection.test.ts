/** GET/POST /dags, /dags/search, /dags/tags, POST /dags/validate over real HTTP. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from '../../helpers/server.js';

const srv = new TestServer();
beforeAll(() => srv.start());
afterAll(() => srv.stop());

const prod = `# production job
name: prod-job
description: runs in prod
group: ops
schedule: "5 * * * *"
tags: [env=prod, critical, team=data]
params:
  - NAME: world
steps:
  - name: one
    command: echo hello # say hello
`;

describe('POST /dags', () => {
  test('creates a DAG with a spec (201 {name}); the text is stored as written', async () => {
    const r = await srv.post('/dags', { name: 'created', spec: prod });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ name: 'created' });
    expect(await srv.storedDag('created')).toBe(prod);
  });

  test('without spec: a minimal DAG with one echo step that validates', async () => {
    expect((await srv.post('/dags', { name: 'minimal' })).status).toBe(201);
    const d = await srv.get('/dags/minimal');
    expect(d.status).toBe(200);
    expect(d.body.errors).toEqual([]);
    expect(d.body.dag.name).toBe('minimal');
    expect(d.body.dag.steps).toHaveLength(1);
    expect(d.body.dag.steps[0].commands[0]).toMatch(/^echo /);
  });

  test('409 already_exists when the fileName is taken', async () => {
    await srv.post('/dags', { name: 'twice' });
    const r = await srv.post('/dags', { name: 'twice', spec: prod });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'already_exists', message: expect.stringContaining('twice') });
  });

  test.each([
    ['missing name', {}],
    ['name not a string', { name: 42 }],
    ['empty name', { name: '' }],
    ['traversal', { name: '../evil' }],
    ['slash', { name: 'a/b' }],
    ['dot', { name: 'a.b' }],
    ['NUL', { name: 'a\u0000b' }],
    ['too long (41)', { name: 'x'.repeat(41) }],
    ['reserved', { name: 'search' }],
    ['spec not a string', { name: 'okname', spec: { steps: [] } }],
    ['invalid spec', { name: 'okname', spec: 'steps:\n  - name: a\n    depends: [nope]\n    command: echo\n' }],
    ['yaml syntax error', { name: 'okname', spec: 'steps: [\n' }],
    ['oversize spec', { name: 'okname', spec: `# ${'x'.repeat(600 * 1024)}\nsteps: []\n` }],
  ])('400 bad_request: %s', async (_what, body) => {
    const r = await srv.post('/dags', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(typeof r.body.message).toBe('string');
    expect(await srv.storedDag('okname')).toBeUndefined();
    expect(existsSync(join(srv.dir, 'evil.yaml'))).toBe(false);
    expect((await srv.storedDagNames()).every((f) => /^[a-zA-Z0-9_-]+$/.test(f))).toBe(true);
  });

  test('invalid spec: the problems are in details.errors', async () => {
    const r = await srv.post('/dags', { name: 'okname', spec: 'steps:\n  - name: a\n    depends: [nope]\n    command: echo\n' });
    expect(r.body.details.errors.join('\n')).toMatch(/nope/);
  });

  test('bad JSON and a non-object body are 400 bad_request', async () => {
    const bad = await srv.req('POST', '/dags', '{"name": ');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('bad_request');
    const arr = await srv.req('POST', '/dags', '["x"]');
    expect(arr.status).toBe(400);
    expect(arr.body.code).toBe('bad_request');
  });
});

describe('POST /dags/validate (always 200 for a spec)', () => {
  test('a valid spec: valid, no errors, the definition', async () => {
    const r = await srv.post('/dags/validate', { spec: prod });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, errors: [], dag: { name: 'prod-job', tags: ['env=prod', 'critical', 'team=data'] } });
  });

  test('name is used when the spec has none; a default name otherwise', async () => {
    const spec = 'steps:\n  - command: echo hi\n';
    expect((await srv.post('/dags/validate', { spec, name: 'given' })).body.dag.name).toBe('given');
    const r = await srv.post('/dags/validate', { spec });
    expect(r.body).toMatchObject({ valid: true, dag: { name: 'unnamed' } });
    expect((await srv.post('/dags/validate', { spec: 'name: own\nsteps: []\n', name: 'given' })).body.dag.name).toBe('own');
  });

  test.each([
    ['semantic problems', 'steps:\n  - name: a\n    depends: [ghost]\n    command: echo\n', /ghost/],
    ['wrong type', 'maxActiveRuns: many\nsteps: []\n', /maxActiveRuns/],
    ['yaml syntax', 'steps: [\n', /yaml/],
    ['an invalid name given', 'steps: []\n', /name/],
  ])('%s: 200 with valid false and errors', async (what, spec, re) => {
    const r = await srv.post('/dags/validate', { spec, ...(what === 'an invalid name given' ? { name: '../x' } : {}) });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors.join('\n')).toMatch(re);
    expect(r.body).toHaveProperty('dag');
  });

  test('5,000 steps: fine embedded; on kubernetes its run status could not fit a DagRun, and validation says so', async () => {
    const spec = `steps:\n${Array.from({ length: 5000 }, (_, i) => `  - name: s${i}\n    command: "true"\n`).join('')}`;
    const r = await srv.post('/dags/validate', { spec, name: 'wide' });
    if (!srv.kube) {
      expect(r.body).toMatchObject({ valid: true, errors: [] });
      return;
    }
    expect(r.body.valid).toBe(false);
    expect(r.body.errors).toEqual([expect.stringMatching(/this DAG's 5000 steps alone make a run status of about \d+ bytes, over the 1048576-byte limit of a DagRun status.*split it into sub-DAGs/)]);
    expect((await srv.post('/dags', { name: 'wide', spec })).status).toBe(400);
  });

  test.each([['missing spec', {}], ['spec not a string', { spec: 1 }], ['name not a string', { spec: 'steps: []', name: [] }]])(
    'a request that is not one: 400 (%s)', async (_w, body) => {
      const r = await srv.post('/dags/validate', body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
    });
});

describe('GET /dags/search and /dags/tags', () => {
  beforeAll(async () => {
    srv.dag('search-a', 'name: search-a\ntags: "env=dev owner=ann"\nsteps:\n  - name: x\n    command: echo NeedleInHay\n');
    srv.dag('search-b', 'tags: [Zeta]\nsteps:\n  - name: y\n    command: echo nothing\n');
    srv.dag('broken-yaml', 'steps: [\n');
  });

  test('matches each line, case-insensitively, with context and line numbers', async () => {
    const r = await srv.get('/dags/search?q=needleinhay');
    expect(r.status).toBe(200);
    expect(r.body.results).toHaveLength(1);
    const [hit] = r.body.results;
    expect(hit.name).toBe('search-a');
    expect(hit.dag.name).toBe('search-a');
    expect(hit.matches).toEqual([{ line: 'steps:\n  - name: x\n    command: echo NeedleInHay\n', lineNumber: 5, startLine: 3 }]);
    expect(Array.isArray(r.body.errors)).toBe(true);
  });

  test('no match: empty results', async () => {
    expect((await srv.get('/dags/search?q=zzzznotthere')).body.results).toEqual([]);
  });

  test.each([['missing', ''], ['empty', '?q='], ['blank', '?q=%20'], ['oversize', `?q=${'a'.repeat(300)}`], ['repeated', '?q=a&q=b']])(
    '400 bad_request when q is %s', async (_what, query) => {
      const r = await srv.get(`/dags/search${query}`);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
    });

  test('tags: sorted unique strings of every DAG; unreadable files in errors', async () => {
    const r = await srv.get('/dags/tags');
    expect(r.status).toBe(200);
    expect(r.body.tags).toEqual(expect.arrayContaining(['env=dev', 'owner=ann', 'zeta', 'env=prod', 'critical', 'team=data']));
    expect(r.body.tags).toEqual([...new Set(r.body.tags as string[])].sort());
    expect(r.body.errors.join('\n')).toMatch(/broken-yaml/);
  });
});
