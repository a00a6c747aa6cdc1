/**
 * The list part of the RunStore conformance suite (conformance.ts runs it for every adapter): the
 * filters of SPEC 4.5, list order, and cursors (`after`) as core/run/run-list.ts defines them, whatever
 * index the adapter answers from. Uses jest globals; imported by test files only.
 */
import type { RunListFilter, RunStore } from '../../core/ports/run-store.js';
import { runKeyOf } from '../../core/ports/run-store.js';
import type { DagRunResource } from '../../core/resources.js';
import { positionOf } from '../../core/run/run-list.js';
import { RunStatus } from '../../core/run/status.js';
import { parseTagFilter, type TagFilter } from '../../core/spec/tags.js';
import { makeRun, type RunFixture } from './run-fixture.js';

const ids = (rs: DagRunResource[]): string[] => rs.map((r) => `${r.spec.dagName}/${r.spec.dagRunId}`);
const at = (s: string): string => `2024-01-01T00:00:${s}Z`;
const ms = (s: string): number => Date.parse(at(s));

function tags(expr: string): TagFilter {
  const f = parseTagFilter(expr);
  if ('error' in f) throw new Error(f.error);
  return f;
}

/**
 * Six runs. List order: child/c1, b/r2, b/r4, a/r4, a/r3, a/r1 (b/r4 and a/r4 tie on time and id: the
 * DAG name decides). Run time (start, else queue time 00:00): a/r1 01.5, a/r3 and a/r4 02.5, others 00.
 */
const FIXTURE: RunFixture[] = [
  { dagName: 'a', dagRunId: 'r1', creationTimestamp: at('01.000'), status: RunStatus.Succeeded, startedAt: at('01.500'), tags: [{ key: 'env', value: 'prod' }, { key: 'team', value: 'a' }] },
  { dagName: 'b', dagRunId: 'r2', creationTimestamp: at('03.000'), status: RunStatus.Failed, tags: [{ key: 'env', value: 'dev' }] },
  { dagName: 'a', dagRunId: 'r3', creationTimestamp: at('02.000'), status: RunStatus.Succeeded, startedAt: at('02.500'), tags: [{ key: 'env', value: 'prod' }] },
  { dagName: 'a', dagRunId: 'r4', creationTimestamp: at('02.000'), status: RunStatus.Running, startedAt: at('02.500') },
  { dagName: 'b', dagRunId: 'r4', creationTimestamp: at('02.000'), status: RunStatus.Succeeded, tags: [{ key: 'critical' }] },
  { dagName: 'child', dagRunId: 'c1', creationTimestamp: at('04.000'), parent: { name: 'a', dagRunId: 'r1' }, status: RunStatus.Succeeded, tags: [{ key: 'env', value: 'prod' }] },
];

export function runListConformance(getStore: () => RunStore): void {
  describe('list filters, order and cursors', () => {
    let store: RunStore;
    const list = async (f: RunListFilter): Promise<string[]> => ids(await store.list(f));
    beforeEach(async () => {
      store = getStore();
      for (const f of FIXTURE) await store.create(makeRun(f));
    });

    it('orders newest first by creation, ties by run id, then DAG name', async () => {
      expect(await list({})).toEqual(['child/c1', 'b/r2', 'b/r4', 'a/r4', 'a/r3', 'a/r1']);
      expect(await list({ limit: 4 })).toEqual(['child/c1', 'b/r2', 'b/r4', 'a/r4']);
    });

    it.each<[string, RunListFilter, string[]]>([
      ['status', { status: RunStatus.Succeeded }, ['b/r4', 'a/r3', 'a/r1']],
      ['status and name', { status: RunStatus.Succeeded, dagName: 'a' }, ['a/r3', 'a/r1']],
      ['a status no run has', { status: RunStatus.Queued }, []],
      ['from (run time)', { fromMs: ms('02.000') }, ['a/r4', 'a/r3']],
      ['to (run time)', { toMs: ms('01.999') }, ['b/r2', 'b/r4', 'a/r1']],
      ['from and to', { fromMs: ms('01.500'), toMs: ms('01.500') }, ['a/r1']],
      ['run id substring', { dagRunIdContains: 'r4' }, ['b/r4', 'a/r4']],
      ['tag key=value', { tags: tags('env=prod') }, ['a/r3', 'a/r1']],
      ['tag value wildcard', { tags: tags('env=d*') }, ['b/r2']],
      ['tag key wildcard', { tags: tags('crit*') }, ['b/r4']],
      ['absent tag', { tags: tags('!env') }, ['b/r4', 'a/r4']],
      ['absent tag, wildcard', { tags: tags('!e?v') }, ['b/r4', 'a/r4']],
      ['tags AND', { tags: tags('env=prod,team') }, ['a/r1']],
      ['everything with a limit', { dagName: 'a', status: RunStatus.Succeeded, tags: tags('env'), fromMs: 0, limit: 1 }, ['a/r3']],
    ])('root runs by %s', async (_label, f, expected) => {
      expect(await list({ rootOnly: true, ...f })).toEqual(expected);
    });

    it('pages with a cursor: each run once, in order, then an empty page', async () => {
      const pages: string[][] = [];
      let after: RunListFilter['after'];
      for (let i = 0; i < 5; i++) {
        const page = await store.list({ rootOnly: true, limit: 2, ...(after ? { after } : {}) });
        pages.push(ids(page));
        if (page.length === 0) break;
        after = positionOf(page.at(-1)!);
      }
      expect(pages).toEqual([['b/r2', 'b/r4'], ['a/r4', 'a/r3'], ['a/r1'], []]);
      expect(await list({ rootOnly: true, status: RunStatus.Succeeded, after: { createdMs: ms('02.000'), dagRunId: 'r4', dagName: 'b' } })).toEqual(['a/r3', 'a/r1']);
    });

    it('a cursor walk is stable while runs are created: no run twice, none that existed skipped', async () => {
      const first = await store.list({ rootOnly: true, limit: 2 });
      expect(ids(first)).toEqual(['b/r2', 'b/r4']);
      // Newer than the cursor (not in later pages), older (in them), and two at the cursor's very time.
      for (const f of [
        { dagName: 'b', dagRunId: 'new', creationTimestamp: at('09.000') },
        { dagName: 'a', dagRunId: 'old', creationTimestamp: at('00.500') },
        { dagName: 'c', dagRunId: 'r4', creationTimestamp: at('02.000') },
        { dagName: 'a', dagRunId: 'r35', creationTimestamp: at('02.000') },
      ]) await store.create(makeRun(f));
      const rest = await store.list({ rootOnly: true, after: positionOf(first.at(-1)!) });
      expect(ids(rest)).toEqual(['a/r4', 'a/r35', 'a/r3', 'a/r1', 'a/old']);
    });

    it('lists a run by its current status: a status write moves it between filters, not in the order', async () => {
      const r3 = (await store.get({ dagName: 'a', dagRunId: 'r3' }))!;
      await store.updateStatus(runKeyOf(r3), r3.metadata.resourceVersion, { ...r3.status, run: { ...r3.status.run, status: RunStatus.Failed } });
      expect(await list({ rootOnly: true, status: RunStatus.Failed })).toEqual(['b/r2', 'a/r3']);
      expect(await list({ rootOnly: true, status: RunStatus.Succeeded })).toEqual(['b/r4', 'a/r1']);
      const r2 = (await store.get({ dagName: 'b', dagRunId: 'r2' }))!;
      await store.updateStatus(runKeyOf(r2), r2.metadata.resourceVersion, { ...r2.status, run: { ...r2.status.run, startedAt: at('05.000') } });
      expect(await list({ rootOnly: true, fromMs: ms('05.000') })).toEqual(['b/r2']);
    });

    it('forgets a deleted run in filtered and paged lists', async () => {
      await store.delete({ dagName: 'a', dagRunId: 'r3' });
      expect(await list({ rootOnly: true, status: RunStatus.Succeeded, limit: 5 })).toEqual(['b/r4', 'a/r1']);
    });
  });
}
