// Finished runs written straight into a data dir in the store's file format (no server, no store): the
// large histories of the run list and UI benchmarks. Plain ESM.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { http, sleep } from './api-servers.mjs';
import { randomUUID } from 'node:crypto';

export const T0 = Date.parse('2026-01-01T00:00:00Z');

/** n runs a second apart from T0 over `dags` DAGs (dag-0000...), 5 % sub-DAG runs, 2 % failed; ms taken. */
export async function generate(root, dataDir, n, dags) {
  const { makeRun } = await import(pathToFileURL(join(root, 'dist/adapters/store/conformance.js')).href);
  const t = performance.now();
  const made = new Set();
  for (let i = 0; i < n; i++) {
    const sub = i % 20 === 19;
    const dagName = sub ? 'sub' : `dag-${String(i % dags).padStart(4, '0')}`;
    const dagRunId = `r${String(i).padStart(7, '0')}`;
    const created = new Date(T0 + i * 1000).toISOString();
    const run = makeRun({ dagName, dagRunId, creationTimestamp: created, ...(sub ? { parent: { name: 'dag-0000', dagRunId: `r${String(i - 1).padStart(7, '0')}` } } : {}) });
    run.spec.definition.tags = [{ key: 'team', value: `t${i % 10}` }, { key: 'bench' }];
    const at = (s) => new Date(T0 + i * 1000 + s * 1000).toISOString();
    const status = i % 50 === 7 ? 2 : 4;
    run.status.run = { ...run.status.run, status, stage: 'done', startedAt: at(1), finishedAt: at(2), nodes: run.status.run.nodes.map((nd) => ({ ...nd, status, startedAt: at(1), finishedAt: at(2), attempt: 1 })) };
    const uid = randomUUID();
    const { resourceVersion: _rv, ...meta } = run.metadata;
    const dir = join(dataDir, 'runs', dagName);
    if (!made.has(dagName)) { mkdirSync(dir, { recursive: true }); made.add(dagName); }
    mkdirSync(join(dir, dagRunId));
    writeFileSync(join(dir, dagRunId, 'status.json'), JSON.stringify({ resourceVersion: String((T0 + i * 1000) * 1000 + 3), uid, status: run.status }));
    writeFileSync(join(dir, dagRunId, 'spec.json'), JSON.stringify({ apiVersion: run.apiVersion, kind: 'DagRun', metadata: { ...meta, uid, creationTimestamp: created }, spec: run.spec }));
  }
  return Math.round(performance.now() - t);
}

/** Waits until the index file says it is complete (the server builds it after its first narrowing list). */
export async function indexBuilt(base, dataDir) {
  const t = performance.now();
  await http('GET', `${base}/dag-runs?limit=1`);
  for (;;) {
    try {
      const db = new DatabaseSync(join(dataDir, 'index', 'runs.sqlite'), { readOnly: true });
      const done = db.prepare("SELECT v FROM meta WHERE k = 'complete'").get()?.v === '1';
      db.close();
      if (done) return Math.round(performance.now() - t);
    } catch { /* not created yet */ }
    await sleep(200);
  }
}
