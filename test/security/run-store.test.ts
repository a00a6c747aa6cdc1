/**
 * Attacks on the embedded run store, through REST: a step (running as the server's user) replaces its
 * run's status.json, spec.json or the run directory itself with a link to a file outside the data
 * directory that holds a plausible run with a marker, or with a FIFO. The API must answer without the
 * marker, without a 500 and without hanging, and the link's target is never written. A step that
 * replaces its attempt's exec records with a link gets no line appended to the link's target.
 */
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer, eventually, type Reply } from '../helpers/server.js';
import { SseClient } from '../api/events/sse-client.js';

const MARK = 'PLANTED-RUN-7d2e91';

/** Answers within 10 s, below 500, without the marker. */
async function safeGet(srv: TestServer, path: string): Promise<Reply> {
  const r = await Promise.race([
    srv.get(path),
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`GET ${path} hung`)), 10_000).unref()),
  ]);
  expect(r.status).toBeLessThan(500);
  expect(r.text).not.toContain(MARK);
  return r;
}

/** The run stream of the DAG sends its first event (or ends) without the marker. */
async function safeStream(srv: TestServer, dag: string): Promise<void> {
  const s = await SseClient.open(`${srv.url}/api/v2/events/dag-runs?name=${dag}`);
  try {
    expect(s.status).toBeLessThan(500);
    if (s.status === 200) await s.until((es) => es.length > 0 || s.ended, 'a first event', 10_000);
    expect(JSON.stringify(s.events)).not.toContain(MARK);
  } finally {
    s.close();
  }
}

describe('a step plants links and FIFOs among its run\'s store files', () => {
  const srv = new TestServer();
  const secret = join(srv.dir, 'secret');
  const runs = join(srv.dataDir, 'runs');
  /** A copy of the run's status.json with the marker as its queue time and a version above any real one. */
  const forge = (from: string, to: string): string =>
    `sed -E -e 's/"queuedAt":"[^"]*"/"queuedAt":"${MARK}"/' -e 's/"resourceVersion":"[0-9]+"/"resourceVersion":"99999999999999999"/' "${from}" > "${to}"`;
  const planting = (dag: string, script: string[]): string => [
    'steps:', '  - name: plant', '    script: |', `      d="${runs}/${dag}/$DAG_RUN_ID"`,
    ...script.map((l) => `      ${l}`),
    // The planted state must hold while the API is asked: the step outlives the checks.
    '      sleep 60',
  ].join('\n');

  beforeAll(async () => {
    mkdirSync(join(secret, 'rundir'), { recursive: true });
    srv.dag('plant-links', planting('plant-links', [
      forge('$d/status.json', `${secret}/status.json`),
      `cp "$d/spec.json" "${secret}/spec.json"`,
      `ln -sf "${secret}/status.json" "$d/status.json"`,
      `ln -sf "${secret}/spec.json" "$d/spec.json"`,
    ]));
    srv.dag('plant-fifo', planting('plant-fifo', ['rm -f "$d/status.json" && mkfifo "$d/status.json"', 'rm -f "$d/spec.json" && mkfifo "$d/spec.json"']));
    srv.dag('plant-dir', planting('plant-dir', [
      forge('$d/status.json', `${secret}/rundir/status.json`),
      `cp "$d/spec.json" "${secret}/rundir/spec.json"`,
      `mv "$d" "$d.moved" && ln -s "${secret}/rundir" "$d"`,
    ]));
    srv.dag('plant-records', [
      'steps:', '  - name: plant', '    script: |',
      '      r="$(dirname "$(dirname "$DAG_RUN_STEP_STDOUT_FILE")")/exec/records"',
      `      test -f "$r" && rm -f "$r" && ln -s "${secret}/records" "$r"`,
      '  - name: after', '    depends: [plant]', '    command: "true"',
    ].join('\n'));
    await srv.start();
  });
  afterAll(async () => srv.stop());

  async function planted(dag: string, id: string, path: string, what: (p: string) => boolean): Promise<void> {
    expect((await srv.post(`/dags/${dag}/start`, { dagRunId: id })).status).toBe(200);
    await eventually(async () => { try { return what(path); } catch { return false; } }, `${dag}/${id} planted`);
  }

  async function askEverything(dag: string, id: string): Promise<void> {
    await safeGet(srv, `/dag-runs/${dag}/${id}`);
    await safeGet(srv, `/dags/${dag}/dag-runs/${id}`);
    await safeGet(srv, `/dags/${dag}/dag-runs`);
    await safeGet(srv, '/dag-runs');
    await safeGet(srv, `/dag-runs?name=${dag}`);
    await safeStream(srv, dag);
  }

  test('status.json and spec.json replaced by links: the run reads as damaged, the targets are not written', async () => {
    const status = join(runs, 'plant-links', 'l1', 'status.json');
    await planted('plant-links', 'l1', join(runs, 'plant-links', 'l1', 'spec.json'), (p) => lstatSync(p).isSymbolicLink());
    const before = readFileSync(join(secret, 'status.json'), 'utf8');
    await askEverything('plant-links', 'l1');
    expect((await safeGet(srv, '/dag-runs/plant-links/l1')).status).toBe(404);
    await safeGet(srv, '/dag-runs/plant-links/l1/stop');
    await srv.post('/dag-runs/plant-links/l1/stop', {});
    expect(lstatSync(status).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(secret, 'status.json'), 'utf8')).toBe(before);
    expect(() => lstatSync(join(secret, 'stop'))).toThrow();
  }, 60_000);

  test('status.json and spec.json replaced by FIFOs: nothing hangs', async () => {
    await planted('plant-fifo', 'f1', join(runs, 'plant-fifo', 'f1', 'spec.json'), (p) => lstatSync(p).isFIFO());
    await askEverything('plant-fifo', 'f1');
    expect(lstatSync(join(runs, 'plant-fifo', 'f1', 'status.json')).isFIFO()).toBe(true);
  }, 60_000);

  test('the exec records replaced by a link: no start or exit line is appended to its target', async () => {
    writeFileSync(join(secret, 'records'), `${MARK}\n`);
    expect((await srv.post('/dags/plant-records/start', { dagRunId: 'x1' })).status).toBe(200);
    const run = await eventually(async () => {
      const r = await safeGet(srv, '/dag-runs/plant-records/x1');
      return r.status === 200 && !['running', 'queued', 'not_started'].includes(r.body.dagRun.statusLabel) ? r.body.dagRun : undefined;
    }, 'plant-records/x1 to finish', 30_000);
    expect(run.nodes.find((n: { step: { name: string } }) => n.step.name === 'after').statusLabel).toBe('succeeded');
    expect(readFileSync(join(secret, 'records'), 'utf8')).toBe(`${MARK}\n`);
  }, 60_000);

  test('the run directory replaced by a link: it is not followed, nothing is written through it', async () => {
    await planted('plant-dir', 'd1', join(runs, 'plant-dir', 'd1'), (p) => lstatSync(p).isSymbolicLink());
    const before = readFileSync(join(secret, 'rundir', 'status.json'), 'utf8');
    await askEverything('plant-dir', 'd1');
    expect((await safeGet(srv, '/dag-runs/plant-dir/d1')).status).toBe(404);
    await srv.post('/dag-runs/plant-dir/d1/stop', {});
    expect(readFileSync(join(secret, 'rundir', 'status.json'), 'utf8')).toBe(before);
    expect(() => lstatSync(join(secret, 'rundir', 'stop'))).toThrow();
  }, 60_000);
});
