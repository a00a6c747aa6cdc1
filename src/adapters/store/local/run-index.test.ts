/**
 * The run index of LocalRunStore (ADR 0016): lists answered from it agree with the run files after
 * writes from several real processes, after a process killed between its status write and its row,
 * for data of an earlier version (no index), and after the index file was damaged.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import type { RunListFilter } from '../../../core/ports/run-store.js';
import { runKeyOf } from '../../../core/ports/run-store.js';
import type { DagRunResource } from '../../../core/resources.js';
import { RunStatus } from '../../../core/run/status.js';
import { parseTagFilter, type TagFilter } from '../../../core/spec/tags.js';
import { CorruptFileError } from '../../fs/atomic.js';
import { makeRun } from '../conformance.js';
import { indexFile, LocalRunStore } from './run-store.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const dirs: string[] = [];
afterAll(async () => { await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))); });

async function tmpData(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'svc-runindex-'));
  dirs.push(d);
  return join(d, 'data');
}

const ids = (rs: DagRunResource[]): string[] => rs.map((r) => `${r.spec.dagName}/${r.spec.dagRunId}`);
const tagFilter = (expr: string): TagFilter => parseTagFilter(expr) as TagFilter;
const rows = (dataDir: string): Array<Record<string, unknown>> => {
  const db = new DatabaseSync(indexFile(dataDir), { readOnly: true });
  try {
    return db.prepare('SELECT dag, id, status FROM runs ORDER BY dag, id').all();
  } finally {
    db.close();
  }
};

/**
 * A TypeScript program run as its own Node process over the sources (type stripping; `.js` imports
 * resolved to the `.ts` files), so that several real processes write one data directory.
 */
const HOOK = `data:text/javascript,${encodeURIComponent(
  "import{registerHooks}from'node:module';registerHooks({resolve(s,c,n){try{return n(s,c)}catch(e){if(s.endsWith('.js'))return n(s.slice(0,-3)+'.ts',c);throw e}}});",
)}`;
async function runProcess(dir: string, body: string, args: string[]): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  const file = join(dir, `child-${Math.random().toString(36).slice(2)}.ts`);
  await writeFile(file, [
    `import { LocalRunStore } from '${ROOT}/src/adapters/store/local/run-store.ts';`,
    `import { IndexKeeper } from '${ROOT}/src/adapters/store/local/index-keeper.ts';`,
    `import { makeRun } from '${ROOT}/src/adapters/store/run-fixture.ts';`,
    'const [dataDir, name, count] = process.argv.slice(2);',
    'const store = new LocalRunStore({ dataDir });',
    'void IndexKeeper;',
    body,
  ].join('\n'));
  const child = spawn(process.execPath, ['--experimental-transform-types', '--no-warnings', '--import', HOOK, file, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, stderr })));
}

/** Creates `count` runs over three DAGs, starts each, and finishes every other one (status writes move rows). */
const WRITER = `
for (let i = 0; i < Number(count); i++) {
  const run = await store.create(makeRun({ dagName: 'd' + (i % 3), dagRunId: name + '-' + i, creationTimestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(), tags: [{ key: 'writer', value: name }] }));
  const key = { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId };
  let v = await store.updateStatus(key, run.metadata.resourceVersion, { ...run.status, run: { ...run.status.run, status: 1, startedAt: new Date().toISOString() } });
  v = await store.updateStatus(key, v.metadata.resourceVersion, { ...v.status, attemptId: 'progress' });
  if (i % 2 === 0) await store.updateStatus(key, v.metadata.resourceVersion, { ...v.status, run: { ...v.status.run, status: 4 } });
}`;

describe('LocalRunStore run index', () => {
  let dataDir: string;
  let store: LocalRunStore;
  beforeEach(async () => {
    dataDir = await tmpData();
    store = new LocalRunStore({ dataDir });
  });
  afterEach(() => store.close());

  const create = async (id: string, at: string, over: Parameters<typeof makeRun>[0] = {}) =>
    store.create(makeRun({ dagRunId: id, creationTimestamp: at, ...over }));

  it('has a row per run from the start, and a page reads only the runs it returns', async () => {
    await create('r1', '2024-01-01T00:00:01.000Z');
    await create('r2', '2024-01-01T00:00:03.000Z');
    await create('r3', '2024-01-01T00:00:02.000Z');
    expect(rows(dataDir).map((r) => r.id)).toEqual(['r1', 'r2', 'r3']);
    // The oldest run's spec is unreadable: reading every run would fail on it.
    await writeFile(join(store.runDir({ dagName: 'hello', dagRunId: 'r1' }), 'spec.json'), 'not json');
    expect(ids(await store.list({ limit: 2 }))).toEqual(['hello/r2', 'hello/r3']);
    expect(ids(await store.list({ status: RunStatus.NotStarted, limit: 2 }))).toEqual(['hello/r2', 'hello/r3']);
    await expect(store.list({ limit: 3 })).rejects.toThrow(CorruptFileError);
    await expect(store.list()).rejects.toThrow(CorruptFileError);
  });

  it('agrees with the run files after several processes wrote runs at the same time', async () => {
    const dir = join(dataDir, '..');
    const writers = await Promise.all(['p1', 'p2', 'p3'].map((name) => runProcess(dir, WRITER, [dataDir, name, '30'])));
    for (const w of writers) expect(w).toMatchObject({ code: 0, stderr: '' });
    const reader = new LocalRunStore({ dataDir });
    expect(await reader.indexReady()).toBe(true);
    expect(rows(dataDir)).toHaveLength(90);
    const filters: RunListFilter[] = [
      { rootOnly: true }, { status: RunStatus.Succeeded }, { status: RunStatus.Running, dagName: 'd1' },
      { tags: tagFilter('writer=p2') }, { dagRunIdContains: '-1' }, { fromMs: Date.parse('2024-01-02T00:00:00Z') },
    ];
    for (const f of filters) {
      // limit: answered from the index; without it (and without narrowing): from the directories.
      const all = ids(await reader.list({ ...f, limit: 1000 }));
      expect(all.length).toBeGreaterThan(0);
      expect(all).toEqual(ids(await scan(reader, f)));
    }
    reader.close();
  }, 60_000);

  it('repairs the row of a process killed between its status write and its index row', async () => {
    const run = await create('crashed', '2024-01-01T00:00:05.000Z');
    await create('other', '2024-01-01T00:00:01.000Z');
    expect(ids(await store.list({ status: RunStatus.Succeeded, limit: 10 }))).toEqual([]);
    const crash = await runProcess(join(dataDir, '..'), `
IndexKeeper.prototype.afterWrite = () => process.kill(process.pid, 'SIGKILL');
const run = await store.get({ dagName: 'hello', dagRunId: 'crashed' });
await store.updateStatus({ dagName: 'hello', dagRunId: 'crashed' }, run.metadata.resourceVersion, { ...run.status, run: { ...run.status.run, status: 4 } });
await store.create(makeRun({ dagRunId: 'never' }));`, [dataDir, '', '']);
    expect(crash.signal).toBe('SIGKILL');
    expect((await store.get(runKeyOf(run)))?.status.run.status).toBe(RunStatus.Succeeded);
    expect(rows(dataDir).find((r) => r.id === 'crashed')?.status).toBe(RunStatus.NotStarted); // the row is behind
    // The next list of any process (here: a new one) repairs it: the writer's pid is gone.
    const other = new LocalRunStore({ dataDir });
    expect(ids(await other.list({ status: RunStatus.Succeeded, limit: 10 }))).toEqual(['hello/crashed']);
    expect(rows(dataDir).find((r) => r.id === 'crashed')?.status).toBe(RunStatus.Succeeded);
    other.close();
  }, 30_000);

  it('lists a run whose creator was killed before writing its row (the long-lived process, within a second)', async () => {
    await create('first', '2024-01-01T00:00:01.000Z');
    expect(ids(await store.list({ limit: 10 }))).toEqual(['hello/first']);
    const crash = await runProcess(join(dataDir, '..'), `
IndexKeeper.prototype.afterWrite = () => process.kill(process.pid, 'SIGKILL');
await store.create(makeRun({ dagRunId: 'born', creationTimestamp: '2024-01-01T00:00:09.000Z' }));`, [dataDir, '', '']);
    expect(crash.signal).toBe('SIGKILL');
    expect(rows(dataDir).map((r) => r.id)).toEqual(['first']);
    const deadline = Date.now() + 5000;
    let listed: string[] = [];
    while (Date.now() < deadline && listed.length < 2) {
      listed = ids(await store.list({ limit: 10 }));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed).toEqual(['hello/born', 'hello/first']);
  }, 30_000);

  it('builds the index of an earlier version\'s data in the background; lists read the files meanwhile', async () => {
    for (let i = 0; i < 40; i++) await create(`r${String(i).padStart(2, '0')}`, new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(), { dagName: `d${i % 4}` });
    store.close();
    for (const f of readdirSync(join(dataDir, 'index'))) await rm(join(dataDir, 'index', f));
    // The per-DAG creation index of earlier versions: no run directory.
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dataDir, 'runs', 'd0', '.order', '2024-01-01T00:00:00.000Z_r00'), { recursive: true }));
    const upgraded = new LocalRunStore({ dataDir });
    expect(ids(await upgraded.list({ limit: 3 }))).toEqual(['d3/r39', 'd2/r38', 'd1/r37']);
    expect(await upgraded.indexReady()).toBe(true);
    expect(rows(dataDir)).toHaveLength(40);
    expect(ids(await upgraded.list({ dagName: 'd0', limit: 2 }))).toEqual(['d0/r36', 'd0/r32']);
    upgraded.close();
  });

  it('moves a damaged index file aside and rebuilds it', async () => {
    await create('r1', '2024-01-01T00:00:01.000Z');
    store.close();
    for (const f of readdirSync(join(dataDir, 'index'))) await rm(join(dataDir, 'index', f));
    await writeFile(indexFile(dataDir), 'this is not a database, but it is long enough to have a header of sorts ...'.repeat(20));
    const fresh = new LocalRunStore({ dataDir });
    expect(ids(await fresh.list({ limit: 5 }))).toEqual(['hello/r1']);
    expect(await fresh.indexReady()).toBe(true);
    expect(rows(dataDir).map((r) => r.id)).toEqual(['r1']);
    expect(readdirSync(join(dataDir, 'index')).some((f) => f.startsWith('runs.sqlite.broken-'))).toBe(true);
    fresh.close();
  });

  it('reconciles an index marked stale (a write to it failed) while it keeps answering', async () => {
    await create('r1', '2024-01-01T00:00:01.000Z');
    await create('r2', '2024-01-01T00:00:02.000Z');
    const db = new DatabaseSync(indexFile(dataDir));
    db.prepare("UPDATE runs SET status = 6 WHERE id = 'r1'").run();
    db.prepare("DELETE FROM runs WHERE id = 'r2'").run();
    db.close();
    await writeFile(`${indexFile(dataDir)}.stale`, '');
    const fresh = new LocalRunStore({ dataDir });
    expect(ids(await fresh.list({ limit: 5 }))).toEqual(['hello/r1']); // answered from the index as it is
    const expected = [{ dag: 'hello', id: 'r1', status: 0 }, { dag: 'hello', id: 'r2', status: 0 }];
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && JSON.stringify(rows(dataDir)) !== JSON.stringify(expected)) await new Promise((r) => setTimeout(r, 20));
    expect(rows(dataDir)).toEqual(expected);
    expect(existsSync(`${indexFile(dataDir)}.stale`)).toBe(false);
    expect(ids(await fresh.list({ limit: 5 }))).toEqual(['hello/r2', 'hello/r1']);
    fresh.close();
  });

  it('drops the row of a run removed behind its back, and skips status writes that change nothing listed', async () => {
    const r1 = await create('r1', '2024-01-01T00:00:01.000Z');
    await create('r2', '2024-01-01T00:00:02.000Z');
    await rm(store.runDir({ dagName: 'hello', dagRunId: 'r2' }), { recursive: true });
    expect(ids(await store.list({ limit: 5 }))).toEqual(['hello/r1']);
    expect(rows(dataDir).map((r) => r.id)).toEqual(['r1']);
    const before = await readFile(`${indexFile(dataDir)}-wal`);
    await store.updateStatus(runKeyOf(r1), r1.metadata.resourceVersion, { ...r1.status, attemptId: 'progress only' });
    expect((await readFile(`${indexFile(dataDir)}-wal`)).equals(before)).toBe(true);
  });
});

/** The same filter answered from the run directories (no limit, no narrowing: LocalRunStore's scan). */
async function scan(store: LocalRunStore, f: RunListFilter): Promise<DagRunResource[]> {
  const { selectRuns, runEntryOf } = await import('../../../core/run/run-list.js');
  return selectRuns(await store.list({ ...(f.dagName ? { dagName: f.dagName } : {}) }), runEntryOf, f);
}
