/** GET /dags: list items, pagination, name/tag/tags filters, unreadable files, 1,000 files. */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CronExpressionParser } from 'cron-parser';
import { TestServer } from '../../helpers/server.js';

const dag = (i: number, tags: string) => `name: d${String(i).padStart(4, '0')}\ntags: "${tags}"\nsteps:\n  - command: echo ${i}\n`;

describe('GET /dags', () => {
  const srv = new TestServer();
  beforeAll(async () => {
    srv.dag('alpha', 'description: first\ngroup: g1\nschedule: ["0 1 * * *", "CRON_TZ=UTC 0 2 * * *"]\nparams: "A=1 B=two"\ntags: [env=prod, critical]\nsteps:\n  - command: echo a\n');
    srv.dag('beta', 'name: Beta-Job\ntags: {env: dev, team: core}\nsteps:\n  - command: echo b\n');
    srv.dag('gamma', 'tags: [env=staging, team=core-data]\nsteps:\n  - command: echo g\n');
    srv.dag('broken', 'steps: [\n');
    srv.dag('invalid', 'steps:\n  - name: a\n    depends: [ghost]\n    command: echo\n');
    await srv.start();
  });
  afterAll(() => srv.stop());

  const names = (r: { body: { dags: Array<{ fileName: string }> } }) => r.body.dags.map((d) => d.fileName);
  const item = (r: { body: { dags: Array<{ fileName: string; nextRun: string }> } }, fileName: string) => r.body.dags.find((d) => d.fileName === fileName)!;

  test('the DAG list item of SPEC 2.8 with a not-started latestDAGRun for a DAG that never ran', async () => {
    const r = await srv.get('/dags');
    expect(r.status).toBe(200);
    const alpha = r.body.dags.find((d: any) => d.fileName === 'alpha');
    expect(alpha).toEqual({
      fileName: 'alpha',
      dag: {
        name: 'alpha', group: 'g1', description: 'first', schedule: [{ expression: '0 1 * * *' }, { expression: 'CRON_TZ=UTC 0 2 * * *' }],
        params: ['A', 'B'], defaultParams: 'A=1 B=two', tags: ['env=prod', 'critical'],
      },
      latestDAGRun: {
        rootDAGRunName: '', rootDAGRunId: '', parentDAGRunName: '', parentDAGRunId: '', dagRunId: '', name: 'alpha',
        status: 0, statusLabel: 'not_started', queuedAt: '', startedAt: '', finishedAt: '', log: '', params: '',
      },
      nextRun: expect.any(String),
      suspended: false,
      errors: [],
    });
    expect(r.body.pagination).toEqual({ totalRecords: 5, currentPage: 1, totalPages: 1, nextPage: null, prevPage: null });
  });

  test('nextRun: the earliest start tick after now of the start schedules, each in its zone; "" when none fires', async () => {
    const before = Date.now();
    const r = await srv.get('/dags');
    const after = Date.now();
    const next = (f: string) => item(r, f).nextRun;
    // alpha: "0 1 * * *" in the server's zone (the test process's) and "0 2 * * *" in UTC.
    const ticks = (at: number) => Math.min(
      CronExpressionParser.parse('0 1 * * *', { currentDate: new Date(at) }).next().getTime(),
      CronExpressionParser.parse('0 2 * * *', { currentDate: new Date(at), tz: 'UTC' }).next().getTime(),
    );
    expect([ticks(before), ticks(after)]).toContain(Date.parse(next('alpha')));
    expect(next('alpha')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
    expect(next('beta')).toBe('');
    expect(next('invalid')).toBe('');
    srv.dag('sched-stop', 'schedule: {start: "*/5 * * * *", stop: "0 0 * * *"}\nsteps:\n  - command: echo\n');
    srv.dag('sched-off', 'schedule: "* * * * *"\nsteps:\n  - command: echo\n');
    expect((await srv.req('POST', '/dags/sched-off/suspend', { suspend: true })).status).toBe(200);
    const r2 = await srv.get('/dags?name=sched-');
    expect(Date.parse(item(r2, 'sched-stop').nextRun) % (5 * 60_000)).toBe(0);
    expect(Date.parse(item(r2, 'sched-stop').nextRun)).toBeGreaterThan(before);
    expect(item(r2, 'sched-off').nextRun).toBe('');
    expect((await srv.req('DELETE', '/dags/sched-stop')).status).toBe(204);
    expect((await srv.req('DELETE', '/dags/sched-off')).status).toBe(204);
  });

  test('unreadable and invalid DAG files are listed with their errors; unreadable ones also in errors', async () => {
    const r = await srv.get('/dags');
    const broken = r.body.dags.find((d: any) => d.fileName === 'broken');
    expect(broken.errors.length).toBeGreaterThan(0);
    const invalid = r.body.dags.find((d: any) => d.fileName === 'invalid');
    expect(invalid.errors.join()).toMatch(/ghost/);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0]).toMatch(/^broken: /);
  });

  // Files only (so not registered on the kubernetes backend): a Dag resource cannot be written under such
  // a name (the store and the admission refuse it), and one applied by hand is reported by the kubernetes
  // store in the same way.
  if (!srv.kube) test('a file whose name cannot be a fileName (my.etl.yaml) is reported in errors, never silently skipped', async () => {
    writeFileSync(join(srv.dagsDir, 'my.etl.yaml'), 'steps:\n  - command: echo etl\n');
    writeFileSync(join(srv.dagsDir, 'notes.txt'), 'not a DAG');
    const r = await srv.get('/dags');
    expect(names(r)).not.toContain('my.etl');
    const reported = expect.stringMatching(/^my\.etl\.yaml: .*not a valid fileName.*rename the file/);
    expect(r.body.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^broken: /), reported]));
    expect(r.body.errors).toHaveLength(2);
    expect((await srv.get('/dags/tags')).body.errors).toContainEqual(reported);
    rmSync(join(srv.dagsDir, 'my.etl.yaml'));
  });

  test.each([
    ['name=bet', ['beta']],
    ['name=BETA-j', ['beta']],
    ['name=alp', ['alpha']],
    ['name=nothing', []],
    ['tag=critical', ['alpha']],
    ['tag=env%3Dprod', ['alpha']],
    ['tags=env', ['alpha', 'beta', 'gamma']],
    ['tags=env%3Dprod', ['alpha']],
    ['tags=team%3Dcore*', ['beta', 'gamma']],
    ['tags=team%3Dcor%3F', ['beta']],
    ['tags=!team', ['alpha', 'broken', 'invalid']],
    ['tags=env,!critical', ['beta', 'gamma']],
    ['tags=ENV%3DDEV', ['beta']],
    ['tags=e*%3Dst*', ['gamma']],
    ['tags=env&tags=team', ['beta', 'gamma']],
    ['tag=env&tags=!critical', ['beta', 'gamma']],
    ['tags=', ['alpha', 'beta', 'broken', 'gamma', 'invalid']],
  ])('filter %s', async (query, expected) => {
    const r = await srv.get(`/dags?${query}`);
    expect(r.status).toBe(200);
    expect(names(r).sort()).toEqual(expected);
    expect(r.body.pagination.totalRecords).toBe(expected.length);
  });

  test.each([
    'page=0', 'page=-1', 'page=abc', 'page=1.5', 'perPage=0', 'perPage=1001', 'perPage=x', 'page[a]=1',
    'page=1&page=2', `name=${'n'.repeat(300)}`, 'tags=a%3D%3Db', 'tags=bad%20key', `tags=${'k'.repeat(2000)}`, 'name[x]=1',
  ].map((q) => [q.length > 40 ? `${q.slice(0, 12)}... (${q.length} chars)` : q, q]))('400 bad_request for %s', async (_title, query) => {
    const r = await srv.get(`/dags?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(r.body.message).toEqual(expect.any(String));
  });

  test('sorted by DAG name; pages with next and prev', async () => {
    const p1 = await srv.get('/dags?perPage=2');
    expect(p1.body.pagination).toEqual({ totalRecords: 5, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null });
    const p3 = await srv.get('/dags?perPage=2&page=3');
    expect(p3.body.pagination).toEqual({ totalRecords: 5, currentPage: 3, totalPages: 3, nextPage: null, prevPage: 2 });
    expect(p3.body.dags).toHaveLength(1);
    const all = [...names(p1), ...names(await srv.get('/dags?perPage=2&page=2')), ...names(p3)];
    expect(all).toEqual(['alpha', 'beta', 'broken', 'gamma', 'invalid']);
    const beyond = await srv.get('/dags?perPage=2&page=9');
    expect(beyond.status).toBe(200);
    expect(beyond.body.dags).toEqual([]);
  });

  test('a file changed on disk is re-read; a deleted one disappears', async () => {
    srv.dag('later', 'description: v1\nsteps:\n  - command: echo\n');
    expect((await srv.get('/dags?name=later')).body.dags[0].dag.description).toBe('v1');
    srv.dag('later', 'description: version two\nsteps:\n  - command: echo\n');
    expect((await srv.get('/dags?name=later')).body.dags[0].dag.description).toBe('version two');
    expect((await srv.req('DELETE', '/dags/later')).status).toBe(204);
    expect((await srv.get('/dags?name=later')).body.dags).toEqual([]);
  });
});

describe('GET /dags with 1,000 DAG files', () => {
  const srv = new TestServer();
  beforeAll(async () => {
    for (let i = 0; i < 1000; i++) srv.dag(`dag-${String(i).padStart(4, '0')}`, dag(i, i % 2 ? 'parity=odd' : 'parity=even'));
    await srv.start();
  });
  afterAll(() => srv.stop());

  test('default page of 50, every page in order, perPage 1000 gives all', async () => {
    const first = await srv.get('/dags');
    expect(first.body.dags).toHaveLength(50);
    expect(first.body.pagination).toEqual({ totalRecords: 1000, currentPage: 1, totalPages: 20, nextPage: 2, prevPage: null });
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const r = await srv.get(`/dags?perPage=250&page=${page}`);
      expect(r.body.pagination.currentPage).toBe(page);
      seen.push(...r.body.dags.map((d: any) => d.dag.name));
    }
    expect(seen).toHaveLength(1000);
    expect(new Set(seen).size).toBe(1000);
    expect(seen).toEqual([...seen].sort());
    const all = await srv.get('/dags?perPage=1000');
    expect(all.body.dags).toHaveLength(1000);
    expect(all.body.errors).toEqual([]);
    expect(all.body.pagination).toMatchObject({ totalPages: 1, nextPage: null });
  });

  test('tag filter over 1,000 files', async () => {
    const r = await srv.get('/dags?tags=parity%3Dodd&perPage=1000');
    expect(r.body.pagination.totalRecords).toBe(500);
  });
});
