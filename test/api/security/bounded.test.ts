/**
 * Every request's work is bounded, over real HTTP on both backends: a tag filter that makes a regular
 * expression backtrack is answered at once (the server keeps answering others), a spec whose aliases
 * expand past the budget is invalid with a small answer, GET /dag-runs answers a page by default, and
 * one client cannot hold more than its share of event streams. The queue is off: enqueued runs stay queued.
 */
import { SseClient } from '../events/sse-client.js';
import { err, eventually, TestServer } from '../../helpers/server.js';

const srv = new TestServer({ SVC_QUEUE_ENABLED: 'false' });
const LONG_KEY = 'a'.repeat(40);
const LONG_VALUE = 'b'.repeat(200);
/** Backtracks for hours as the regular expression `^.*..*.....x$` on a 40-character key. */
const BACKTRACKING_KEY = `${'*?'.repeat(15)}x`;

beforeAll(async () => {
  srv.dag('longtag', `maxActiveRuns: -1\ntags: ["${LONG_KEY}=${LONG_VALUE}"]\nsteps:\n  - name: s\n    command: "true"\n`);
  srv.dag('other', 'maxActiveRuns: -1\ntags: [env=prod]\nsteps:\n  - name: s\n    command: "true"\n');
  // 190 KB of comments in 30 long lines (under the 256 KiB a Dag resource holds): every line matches a search.
  srv.dag('longlines', `${Array.from({ length: 30 }, () => `# ${'needle '.repeat(900)}`).join('\n')}\nsteps:\n  - name: s\n    command: "true"\n`);
  await srv.start();
  expect((await srv.post('/dags/longtag/enqueue', { dagRunId: 'long-1' })).status).toBe(200);
  expect((await srv.post('/dags/other/enqueue', { dagRunId: 'other-1' })).status).toBe(200);
});
afterAll(() => srv.stop());

const dagNames = (body: any): string[] => body.dags.map((d: any) => d.fileName).sort();
const runIds = (body: any): string[] => body.dagRuns.map((r: any) => r.dagRunId).sort();

describe('tag filters with many wildcards', () => {
  // No timer decides these: on a matcher that backtracks, the filter blocks the server (and this
  // process) until the whole search space is tried, and the test never gets its answers.
  test.each([
    ['a key pattern that matches nothing', `${BACKTRACKING_KEY}`, []],
    ['a key pattern that matches', `${'*?'.repeat(15)}a`, ['longtag']],
    ['a value pattern that matches nothing', `${LONG_KEY}=${'*?'.repeat(60)}c`, []],
    ['a value pattern that matches', `${LONG_KEY}=${'*?'.repeat(60)}b`, ['longtag']],
  ])('GET /dags?tags= with %s answers, and /health answers meanwhile', async (_what, filter, expected) => {
    const listing = srv.get(`/dags?tags=${encodeURIComponent(filter)}`);
    const health = await srv.get('/health');
    expect(health.status).toBe(200);
    const r = await listing;
    expect(r.status).toBe(200);
    expect(dagNames(r.body)).toEqual(expected);
  });

  test('GET /dag-runs?tags= with a backtracking pattern answers with the runs it keeps', async () => {
    const none = srv.get(`/dag-runs?tags=${encodeURIComponent(BACKTRACKING_KEY)}`);
    expect((await srv.get('/health')).status).toBe(200);
    expect(runIds((await none).body)).toEqual([]);
    const some = await srv.get(`/dag-runs?tags=${encodeURIComponent(`${'*?'.repeat(15)}a=${'*?'.repeat(60)}b`)}`);
    expect(runIds(some.body)).toEqual(['long-1']);
  });
});

/** 100 KB of text named 400 times: 113 KB of spec, 40 MB once expanded (each use of an anchored scalar is free under yaml's maxAliasCount). */
const LAUGHS = [`description: &big "${'l'.repeat(100_000)}"`, 'steps:', ...Array.from({ length: 400 }, (_, i) => `  - { name: s${i}, command: *big }`)].join('\n');
const SMALL = 64 * 1024;

describe('a spec whose aliases expand past the budget', () => {
  test('POST /dags/validate: 200, invalid, the budget named, no expanded dag, a small body', async () => {
    const r = await srv.post('/dags/validate', { spec: LAUGHS });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors).toEqual([expect.stringMatching(/expands to more than \d+ bytes \(the expansion budget of a DAG spec\)/)]);
    expect(r.body.dag).toBeNull();
    expect(r.text.length).toBeLessThan(SMALL);
  });

  test.each([
    ['POST /dags', 'POST', '/dags', { name: 'laughs', spec: LAUGHS }],
    ['POST /dag-runs (inline)', 'POST', '/dag-runs', { name: 'laughs', spec: LAUGHS }],
    ['PUT /dags/{f}/spec', 'PUT', '/dags/other/spec', { spec: LAUGHS }],
  ])('%s refuses it with a small answer naming the budget', async (_what, method, path, body) => {
    const r = await srv.req(method, path, body);
    expect(r.text.length).toBeLessThan(SMALL);
    expect(r.text).toContain('expansion budget');
    if (r.status !== 200) expect(r.body).toMatchObject({ code: 'bad_request' });
    expect(await srv.storedDag('laughs')).toBeUndefined();
  });
});

describe('GET /dag-runs without limit', () => {
  test('answers the default page of 100 with a cursor to the rest', async () => {
    for (let i = 0; i < 105; i++) expect((await srv.post('/dags/other/enqueue', { dagRunId: `many-${String(i).padStart(3, '0')}` })).status).toBe(200);
    const first = await srv.get('/dag-runs');
    expect(first.status).toBe(200);
    expect(first.body.dagRuns).toHaveLength(100);
    expect(typeof first.body.nextCursor).toBe('string');
    const rest = await srv.get(`/dag-runs?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(rest.body.nextCursor).toBeNull();
    expect(runIds({ dagRuns: [...first.body.dagRuns, ...rest.body.dagRuns] })).toHaveLength(107);
    expect((await srv.get('/dag-runs?limit=1001')).body).toEqual(err('bad_request'));
  });
});

describe('GET /dags/search over long lines', () => {
  test('answers excerpts of the lines, not the lines: a small body for a large DAG', async () => {
    const r = await srv.get('/dags/search?q=needle');
    expect(r.status).toBe(200);
    const hit = r.body.results.find((x: { name: string }) => x.name === 'longlines');
    expect(hit.matches.length).toBeGreaterThan(0);
    for (const m of hit.matches) for (const line of m.line.split('\n')) expect(line.length).toBeLessThanOrEqual(502);
    expect(r.text.length).toBeLessThan(200 * 1024);
  });
});

describe('event streams of one client', () => {
  const open: SseClient[] = [];
  afterAll(() => { for (const s of open) s.close(); });

  test('the stream past the per-client cap is refused with 429; closing one frees a slot', async () => {
    const url = `${srv.url}/api/v2/events/dag-runs?limit=1`;
    for (;;) {
      const s = await SseClient.open(url);
      if (s.status !== 200) {
        expect(s.status).toBe(429);
        expect(s.error).toEqual({ code: 'too_many_requests', message: expect.stringContaining('event streams open'), details: { maxStreamsPerClient: open.length } });
        expect(s.headers.get('retry-after')).toMatch(/^\d+$/);
        break;
      }
      open.push(s);
      await s.until((e) => e.some((x) => x.event === 'snapshot'), 'the snapshot');
      // The server-wide cap (100) is far above a client's share: a client never reaches it alone.
      expect(open.length).toBeLessThan(100);
    }
    expect(open.length).toBeGreaterThan(0);
    expect((await srv.get('/health')).status).toBe(200);
    expect((await srv.get('/dag-runs?limit=1')).status).toBe(200);
    open.pop()!.close();
    const again = await eventually(async () => {
      const s = await SseClient.open(url);
      if (s.status === 200) return s;
      return undefined;
    }, 'a slot freed by the closed stream');
    open.push(again);
  });
});
