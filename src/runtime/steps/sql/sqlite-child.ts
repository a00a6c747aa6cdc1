/**
 * The program of the process a sqlite step runs its SQL in (sqlite.ts says why a process). Plain
 * JavaScript run with `node -e`, so it needs no file of its own wherever svc runs (the compiled tree,
 * the CLI bundle, the image). It receives one job over IPC, runs its statements with node:sqlite and
 * sends back, per statement, the column names, the rows in batches (each send awaited, so a large
 * result never piles up in memory) and what it changed, or the error; then it exits. Values travel
 * by structured clone: integers as BigInt (read exactly), blobs as Uint8Array.
 *
 * Job: { location (a path, :memory: or a file: URI), busyTimeoutMs, transaction, maxRows, statements: [{ sql, values }] }.
 * Messages: cols {i, names} | rows {i, rows} | done {i, changes, rows, more} | error {i, message} | end.
 */
export const SQLITE_CHILD = String.raw`
const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
const send = (m) => new Promise((ok, fail) => process.send(m, (e) => (e ? fail(e) : ok())));
async function rowsOf(st, i, values, maxRows) {
  st.setReturnArrays(true);
  await send({ t: 'cols', i, names: st.columns().map((c) => c.name) });
  let batch = [];
  let n = 0;
  let more = false;
  for (const row of st.iterate(...values)) {
    if (maxRows > 0 && n >= maxRows) { more = true; break; }
    batch.push(row);
    n++;
    if (batch.length >= 256) { await send({ t: 'rows', i, rows: batch }); batch = []; }
  }
  if (batch.length > 0) await send({ t: 'rows', i, rows: batch });
  await send({ t: 'done', i, rows: n, more });
}
async function run(job) {
  let at = -1;
  let db;
  try {
    db = new DatabaseSync(job.location, { timeout: job.busyTimeoutMs });
    if (job.transaction) db.exec('BEGIN');
    for (const [i, s] of job.statements.entries()) {
      at = i;
      const st = db.prepare(s.sql);
      st.setReadBigInts(true);
      if (st.columns().length > 0) await rowsOf(st, i, s.values, job.maxRows);
      else await send({ t: 'done', i, changes: st.run(...s.values).changes });
    }
    at = -1;
    if (job.transaction) db.exec('COMMIT');
    db.close();
    await send({ t: 'end' });
  } catch (e) {
    let rolledBack = false;
    try { if (db && db.isOpen && db.isTransaction) { db.exec('ROLLBACK'); rolledBack = true; } } catch {}
    await send({ t: 'error', i: at, message: String((e && e.message) || e), rolledBack }).catch(() => {});
  }
  process.disconnect();
}
process.once('message', (job) => { run(job); });
`;
