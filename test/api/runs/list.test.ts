/**
 * GET /dag-runs pages (limit, cursor, nextCursor) over real HTTP, on both backends: the filters of SPEC
 * 4.5 combined with pages, a cursor walk while runs are added, and the 400s of bad page parameters. The
 * queue processor is off, so enqueued runs stay queued (status 5) and nothing runs.
 */
import { err, runsServer } from './helpers.js';

const srv = runsServer({ SVC_QUEUE_ENABLED: 'false' });
/** Run ids in creation order (the list is newest first). */
const created: string[] = [];

async function enqueue(dag: string, id: string): Promise<void> {
  const r = await srv.post(`/dags/${dag}/enqueue`, { dagRunId: id });
  expect(r.status).toBe(200);
  created.push(id);
}

beforeAll(async () => {
  srv.dag('alpha', 'maxActiveRuns: -1\ntags: [env=prod, team=a]\nsteps:\n  - name: s\n    command: "true"\n');
  srv.dag('beta', 'maxActiveRuns: -1\ntags: [env=dev]\nsteps:\n  - name: s\n    command: "true"\n');
  await srv.start();
  for (let i = 1; i <= 7; i++) await enqueue('alpha', `a-0${i}`);
  for (let i = 1; i <= 5; i++) await enqueue('beta', `b-0${i}`);
});
afterAll(() => srv.stop());

const newestFirst = (ids: string[]): string[] => [...ids].reverse();
const idsOf = (body: any): string[] => body.dagRuns.map((r: any) => r.dagRunId);

/** Every page of a query: the run ids of each page, and the answers. */
async function walk(query: string, limit: number): Promise<{ pages: string[][]; last: any }> {
  const pages: string[][] = [];
  let cursor: string | null = null;
  let last: any;
  do {
    const r = await srv.get(`/dag-runs?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    last = r.body;
    pages.push(idsOf(r.body));
    cursor = r.body.nextCursor;
    expect(pages.length).toBeLessThan(20);
  } while (cursor);
  return { pages, last };
}

describe('GET /dag-runs with limit and cursor', () => {
  test('without limit or cursor: the first page of the default size (100), with nextCursor', async () => {
    const r = await srv.get('/dag-runs');
    expect(Object.keys(r.body)).toEqual(['dagRuns', 'nextCursor']);
    expect(idsOf(r.body)).toEqual(newestFirst(created));
    expect(r.body.nextCursor).toBeNull();
  });

  test('a walk gives each run once, newest first, and ends with nextCursor null', async () => {
    const { pages, last } = await walk('name=alpha', 3);
    expect(pages).toEqual([['a-07', 'a-06', 'a-05'], ['a-04', 'a-03', 'a-02'], ['a-01']]);
    expect(last.nextCursor).toBeNull();
    const exact = await walk('name=beta', 5);
    expect(exact.pages).toEqual([['b-05', 'b-04', 'b-03', 'b-02', 'b-01']]);
  });

  const ALL = 'every run';
  test.each([
    ['status', 'status=5', ALL],
    ['a status no run has', 'status=4', []],
    ['tags', 'tags=env=dev', ['b-05', 'b-04', 'b-03', 'b-02', 'b-01']],
    ['tags with a wildcard and an absent key', 'tags=team,!critical,env=p*', ['a-07', 'a-06', 'a-05', 'a-04', 'a-03', 'a-02', 'a-01']],
    ['run id substring', 'dagRunId=-0', ALL],
    ['run id substring and name', 'dagRunId=a-0&name=beta', []],
    ['dates', `fromDate=0&toDate=${Math.floor(Date.now() / 1000) + 3600}`, ALL],
    ['a date range in the future', `fromDate=${Math.floor(Date.now() / 1000) + 3600}`, []],
  ])('filters combine with pages: %s', async (_label, query, expected) => {
    const { pages } = await walk(query, 2);
    expect(pages.flat()).toEqual(expected === ALL ? newestFirst(created) : expected);
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);
  });

  test('a cursor walk while runs are added: the pages go on where they were, new runs are on a new first page', async () => {
    const first = await srv.get('/dag-runs?limit=4');
    expect(idsOf(first.body)).toEqual(newestFirst(created).slice(0, 4));
    const before = [...created];
    await enqueue('alpha', 'a-08');
    await enqueue('beta', 'b-06');
    const rest = await srv.get(`/dag-runs?cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(rest.status).toBe(200);
    expect(rest.body.nextCursor).toBeNull(); // a cursor without a limit: the default page after it
    expect([...idsOf(first.body), ...idsOf(rest.body)]).toEqual(newestFirst(before));
    expect(idsOf((await srv.get('/dag-runs?limit=2')).body)).toEqual(['b-06', 'a-08']);
  });

  test('the summaries of a page are those of the full list', async () => {
    const all = (await srv.get('/dag-runs?name=beta')).body.dagRuns;
    const page = (await srv.get('/dag-runs?name=beta&limit=2')).body.dagRuns;
    expect(page).toEqual(all.slice(0, 2));
  });

  test.each([
    ['limit 0', 'limit=0', /limit must be an integer from 1 to 1000/],
    ['limit over 1000', 'limit=1001', /limit must be an integer from 1 to 1000/],
    ['limit negative', 'limit=-5', /limit/],
    ['limit not a number', 'limit=ten', /limit/],
    ['limit fractional', 'limit=1.5', /limit/],
    ['limit repeated', 'limit=1&limit=2', /limit must be given once/],
    ['cursor not one of ours', 'cursor=not-a-cursor', /invalid cursor "not-a-cursor": pass the nextCursor of a previous answer unchanged/],
    ['cursor with other characters', 'cursor=a%2Bb%2F', /invalid cursor/],
    ['cursor of a tampered position', `cursor=${Buffer.from('[1,0,"../x","r"]').toString('base64url')}`, /invalid cursor/],
    ['cursor too long', `cursor=${'A'.repeat(600)}`, /cursor is longer than 512 characters/],
    ['cursor repeated', 'cursor=a&cursor=b', /cursor must be given once/],
  ])('400 bad_request: %s', async (_label, query, message) => {
    const r = await srv.get(`/dag-runs?${query}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject(err('bad_request'));
    expect(r.body.message).toMatch(message);
  });
});
