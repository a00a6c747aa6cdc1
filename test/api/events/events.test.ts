/**
 * The event streams (server-sent events) over real HTTP, read with Node's fetch as a browser's fetch
 * reader would: run status changes (a list and one run) while a run started over REST runs, a step's log
 * tail while the step writes, a run driven by a separate `svc start` process (embedded), the documented
 * errors, authentication, and the cap on concurrent streams. Runs on both backends (test/api-kube.jest.config.js).
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Contract } from '../contract/contract.js';
import { bearer, apiKeyWithRole, builtinServer, login, ADMIN_PASSWORD } from '../auth/harness.js';
import { eventually, TestServer, type Reply } from '../../helpers/server.js';
import { SseClient, type SseEvent } from './sse-client.js';

const srv = new TestServer();
let contract: Contract;
const open: SseClient[] = [];

async function stream(path: string, headers: Record<string, string> = {}, on: TestServer = srv, localAddress?: string): Promise<SseClient> {
  const s = await SseClient.open(`${on.url}/api/v2${path}`, headers, localAddress);
  open.push(s);
  return s;
}

/** The data of an event is what the GET it mirrors answers: checked against that operation's documented 200. */
function conformsAs(getPath: string, body: unknown): void {
  const reply: Reply = { status: 200, body, text: JSON.stringify(body), headers: new Headers({ 'content-type': 'application/json' }) };
  expect(contract.problems('GET', getPath, reply)).toEqual([]);
}

/** An error answer of an event stream conforms to the document (JSON in the error model). */
function conformsError(path: string, s: SseClient, status: number, code: string): void {
  expect([s.status, s.error?.code]).toEqual([status, code]);
  const reply: Reply = { status: s.status, body: s.error, text: JSON.stringify(s.error), headers: s.headers };
  expect(contract.problems('GET', path, reply)).toEqual([]);
}

const runEvents = (s: SseClient, id: string): SseEvent[] => s.events.filter((e) => e.event === 'dag-run' && e.data.dagRun.dagRunId === id);

/** The lines a client holds after applying `log` events (each replaces from its offset on). */
function linesOf(s: SseClient): string[] {
  const lines: string[] = [];
  for (const e of s.events) {
    if (e.event !== 'log') continue;
    lines.length = e.data.offset - 1;
    lines.push(...e.data.lines);
  }
  return lines;
}

beforeAll(async () => {
  srv.dag('pulse', 'steps:\n  - name: one\n    command: sleep 1\n  - name: two\n    depends: [one]\n    command: echo two\n');
  srv.dag('ticker', 'steps:\n  - name: talk\n    command: for i in 1 2 3 4; do echo "line $i"; echo "err $i" >&2; sleep 0.8; done\n');
  await srv.start();
  contract = await Contract.load(srv);
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
afterAll(() => srv.stop());

describe('GET /events/dag-runs', () => {
  test('a DAG\'s runs: a snapshot, then an event per status change while a run started over REST runs and succeeds', async () => {
    const s = await stream('/events/dag-runs?name=pulse');
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.headers.get('cache-control')).toMatch(/no-cache/);
    const snapshot = await s.next('snapshot');
    expect(snapshot.data).toEqual({ dagRuns: [] });
    expect((await srv.post('/dags/pulse/start', { dagRunId: 'p1' })).status).toBe(200);
    await s.next('dag-run', (d) => d.dagRun.dagRunId === 'p1' && d.dagRun.statusLabel === 'succeeded', 'p1 succeeded', 60_000);
    const labels = runEvents(s, 'p1').map((e) => e.data.dagRun.statusLabel);
    expect(labels).toContain('running');
    expect(labels.indexOf('running')).toBeLessThan(labels.indexOf('succeeded'));
    for (const e of runEvents(s, 'p1')) conformsAs('/dag-runs', { dagRuns: [e.data.dagRun] });
    // ids count up from 1 (the snapshot)
    expect(s.events.map((e) => Number(e.id))).toEqual(s.events.map((_e, i) => i + 1));
    // A new stream's snapshot has the finished run, as GET /dag-runs lists it.
    const again = await stream('/events/dag-runs?name=pulse');
    const list = await srv.get('/dag-runs?name=pulse');
    expect((await again.next('snapshot')).data).toEqual({ dagRuns: list.body.dagRuns });
    conformsAs('/dag-runs', list.body);
  });

  test('one run (and `latest`): the run detail, as GET /dag-runs/{name}/{dagRunId} returns it, at each status change of it or its nodes', async () => {
    expect((await srv.post('/dags/pulse/start', { dagRunId: 'p2' })).status).toBe(200);
    const s = await stream('/events/dag-runs?name=pulse&dagRunId=p2');
    const snapshot = await s.next('snapshot');
    expect(snapshot.data.dagRun).toMatchObject({ dagRunId: 'p2', name: 'pulse' });
    expect(snapshot.data.dagRun.nodes.map((n: any) => n.step.name)).toEqual(['one', 'two']);
    conformsAs('/dag-runs/pulse/p2', snapshot.data);
    const done = await s.next('dag-run', (d) => d.dagRun.statusLabel === 'succeeded', 'p2 succeeded', 60_000);
    expect(done.data).toEqual((await srv.get('/dag-runs/pulse/p2')).body);
    const states = [snapshot, ...runEvents(s, 'p2')].map((e) => `${e.data.dagRun.statusLabel}:${e.data.dagRun.nodes.map((n: any) => n.statusLabel).join(',')}`);
    // Each event is a change of the run's status or a node's, and step one was seen running.
    for (let i = 1; i < states.length; i++) expect(states[i]).not.toBe(states[i - 1]);
    expect(states.some((x) => x.includes(':running'))).toBe(true);
    expect(states[states.length - 1]).toBe('succeeded:succeeded,succeeded');
    for (const e of runEvents(s, 'p2')) conformsAs('/dag-runs/pulse/p2', e.data);
    expect(runEvents(s, 'p1')).toEqual([]);

    const latest = await stream('/events/dag-runs?name=pulse&dagRunId=latest');
    expect((await latest.next('snapshot')).data).toEqual((await srv.get('/dag-runs/pulse/latest')).body);
  });

  test('errors before the stream opens are JSON in the error model: 400 bad input, 404 unknown run', async () => {
    conformsError('/events/dag-runs', await stream('/events/dag-runs?dagRunId=p1'), 400, 'bad_request');
    conformsError('/events/dag-runs', await stream('/events/dag-runs?name=no%2Fslash'), 400, 'bad_request');
    conformsError('/events/dag-runs', await stream('/events/dag-runs?limit=0'), 400, 'bad_request');
    conformsError('/events/dag-runs', await stream('/events/dag-runs?name=pulse&dagRunId=nope'), 404, 'not_found');
  });
});

describe('GET /events/dag-runs/{name}/{dagRunId}/steps/{stepName}/log', () => {
  test('stdout and stderr of a slow step as they are written, then `end` once the step finished and all was sent', async () => {
    expect((await srv.post('/dags/ticker/start', { dagRunId: 't1' })).status).toBe(200);
    const out = await stream('/events/dag-runs/ticker/t1/steps/talk/log');
    const err = await stream('/events/dag-runs/ticker/t1/steps/talk/log?stream=stderr');
    expect(out.status).toBe(200);
    await out.next('log', undefined, 'the first lines', 60_000);
    // The first lines came while the step was still writing (it writes for more than 2 s).
    expect((await srv.get('/dag-runs/ticker/t1')).body.dagRun.statusLabel).toBe('running');
    expect(out.events.some((e) => e.event === 'end')).toBe(false);
    await out.closedByServer(60_000);
    await err.closedByServer(60_000);
    expect(linesOf(out)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
    expect(linesOf(err)).toEqual(['err 1', 'err 2', 'err 3', 'err 4']);
    // Lines came in more than one event, each event's id the number of its last line.
    const logs = out.events.filter((e) => e.event === 'log');
    expect(logs.length).toBeGreaterThan(1);
    for (const e of logs) expect(Number(e.id)).toBe(e.data.offset + e.data.lines.length - 1);
    expect(out.events[out.events.length - 1]).toEqual({ event: 'end', id: '4', data: { status: 4, statusLabel: 'succeeded', totalLines: 4 } });
  });

  test('a finished step: everything at once then `end`; `tail` and Last-Event-ID start later', async () => {
    const all = await stream('/events/dag-runs/ticker/t1/steps/talk/log');
    await all.closedByServer();
    expect(all.events.map((e) => e.event)).toEqual(['log', 'end']);
    expect(all.events[0]!.data).toEqual({ offset: 1, lines: ['line 1', 'line 2', 'line 3', 'line 4'] });

    const tail = await stream('/events/dag-runs/ticker/t1/steps/talk/log?tail=2');
    await tail.closedByServer();
    expect(tail.events[0]).toEqual({ event: 'log', id: '4', data: { offset: 3, lines: ['line 3', 'line 4'] } });

    // A reconnecting EventSource sends the last id it got: its last line comes again (it may have grown), then the rest.
    const resumed = await stream('/events/dag-runs/ticker/t1/steps/talk/log', { 'last-event-id': '2' });
    await resumed.closedByServer();
    expect(resumed.events.map((e) => [e.event, e.data])).toEqual([
      ['log', { offset: 2, lines: ['line 2', 'line 3', 'line 4'] }], ['end', { status: 4, statusLabel: 'succeeded', totalLines: 4 }],
    ]);
  });

  test('errors: 404 unknown run or step, 400 bad stream', async () => {
    const p = '/events/dag-runs/ticker/t1/steps/talk/log';
    conformsError(p, await stream('/events/dag-runs/ticker/nope/steps/talk/log'), 404, 'not_found');
    conformsError(p, await stream('/events/dag-runs/ticker/t1/steps/nope/log'), 404, 'not_found');
    conformsError(p, await stream(`${p}?stream=both`), 400, 'bad_request');
    conformsError(p, await stream(`${p}?tail=0`), 400, 'bad_request');
  });
});

/** Embedded only (a second process writing the same data directory): not registered on the kubernetes backend, where the operator drives every run. */
const embedded = (name: string, fn: () => Promise<void>): void => {
  if (!srv.kube) test(name, fn);
};

embedded('a run driven by a separate `svc start` process is seen, with its log', async () => {
  srv.dag('by-cli', 'steps:\n  - name: a\n    command: sleep 1; echo from-cli\n  - name: b\n    depends: [a]\n    command: echo b\n');
  const s = await stream('/events/dag-runs?name=by-cli');
  await s.next('snapshot');
  const cli = spawn(process.execPath, [resolve('bin/svc.js'), 'start', join(srv.dagsDir, 'by-cli.yaml')], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh', SVC_DATA_DIR: srv.dataDir, SVC_DAGS_DIR: srv.dagsDir },
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((r) => cli.once('exit', r));
  const running = await s.next('dag-run', (d) => d.dagRun.statusLabel === 'running', 'the CLI run running', 30_000);
  const id = running.data.dagRun.dagRunId as string;
  const log = await stream(`/events/dag-runs/by-cli/${id}/steps/a/log`);
  await s.next('dag-run', (d) => d.dagRun.statusLabel === 'succeeded', 'the CLI run succeeded', 30_000);
  await log.closedByServer();
  expect(linesOf(log)).toEqual(['from-cli']);
  expect(await exited).toBe(0);
});

describe('authentication and the stream cap', () => {
  test('with authentication on: 401 without credentials (both streams), open to a viewer API key', async () => {
    const a = builtinServer({ SVC_TEST_OPERATOR: 'off' });
    await a.start();
    try {
      const admin = await login(a, 'admin', ADMIN_PASSWORD);
      const viewer = await apiKeyWithRole(a, admin, 'sse-viewer', 'viewer');
      for (const path of ['/events/dag-runs', '/events/dag-runs/x/y/steps/z/log']) {
        const denied = await stream(path, {}, a);
        conformsError(path, denied, 401, 'unauthorized');
        expect(denied.headers.get('www-authenticate')).toMatch(/Bearer/);
        conformsError(path, await stream(path, bearer('svc_not-a-key-0123456789abcdef'), a), 401, 'unauthorized');
      }
      const ok = await stream('/events/dag-runs', bearer(viewer.key), a);
      expect(ok.status).toBe(200);
      expect((await ok.next('snapshot')).data).toEqual({ dagRuns: [] });
      const notFound = await stream('/events/dag-runs/x/y/steps/z/log', bearer(viewer.key), a);
      expect(notFound.status).toBe(404);
    } finally {
      for (const s of open.splice(0)) s.close();
      await a.stop();
    }
  });

  test('at most 100 streams at once: the next is 503 service_unavailable with Retry-After; a closed stream frees its slot', async () => {
    const held: SseClient[] = [];
    // Ten clients (loopback source addresses), each under its own cap of 16 streams, fill the server's 100.
    const from = (i: number): string => `127.0.0.${10 + (i % 10)}`;
    for (let i = 0; i < 100; i++) {
      // Slots of streams closed by earlier tests are freed as the server sees the connections close.
      held.push(await eventually(async () => {
        const s = await stream(i % 2 ? '/events/dag-runs?name=pulse' : '/events/dag-runs/ticker/t1/steps/talk/log', {}, srv, from(i));
        if (s.status === 200) return s;
        s.close();
        return undefined;
      }, `stream ${i + 1}`));
    }
    // The log tails of a finished step end by themselves: only the run streams stay.
    await Promise.all(held.filter((_s, i) => i % 2 === 0).map((s) => s.closedByServer()));
    for (let i = 0; i < 50; i++) {
      const s = await stream('/events/dag-runs', {}, srv, from(i));
      expect(s.status).toBe(200);
      held.push(s);
    }
    const refused = await stream('/events/dag-runs', {}, srv, '127.0.0.30');
    conformsError('/events/dag-runs', refused, 503, 'service_unavailable');
    expect(refused.headers.get('retry-after')).toBe('5');
    conformsError('/events/dag-runs/ticker/t1/steps/talk/log', await stream('/events/dag-runs/ticker/t1/steps/talk/log', {}, srv, '127.0.0.30'), 503, 'service_unavailable');
    held[1]!.close();
    const next = await eventually(async () => {
      const s = await stream('/events/dag-runs?name=pulse', {}, srv, from(1));
      return s.status === 200 ? s : undefined;
    }, 'a freed slot');
    expect((await next.next('snapshot')).data.dagRuns.length).toBeGreaterThan(0);
  });
});
