/**
 * The event routers on fakes (a run feed the test drives, an in-memory log written a piece at a time):
 * what the real server makes hard to time. Heartbeats; a line written in pieces; the end of a tail;
 * the slot of a client that went away; a server stop ends every stream.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/api/app.js';
import { eventsApi, type EventsApi } from '../../../src/api/events/index.js';
import { NotFoundError } from '../../../src/core/errors.js';
import { dagRunMetadata } from '../../../src/core/naming.js';
import type { LogPage, LogQuery, LogRef, LogStore } from '../../../src/core/ports/log-store.js';
import type { RunFeed } from '../../../src/core/ports/run-feed.js';
import { runKeyText, type RunKey } from '../../../src/core/ports/run-store.js';
import { API_VERSION, type DagRunResource } from '../../../src/core/resources.js';
import { newRunState } from '../../../src/core/run/state.js';
import { NodeStatus, RunStatus } from '../../../src/core/run/status.js';
import { mkDag, mkStep } from '../../../src/core/run/testkit.js';
import { eventually } from '../../helpers/wait.js';
import { SseClient } from './sse-client.js';

class Feed implements RunFeed {
  readonly fns = new Set<(r: DagRunResource) => void>();
  subscribe(fn: (r: DagRunResource) => void): () => void {
    this.fns.add(fn);
    return () => this.fns.delete(fn);
  }
  async ready(): Promise<void> {}
  emit(r: DagRunResource): void {
    for (const fn of this.fns) fn(r);
  }
}

/** Logs as text per location; pages as the file store cuts them (a last line without newline counts). */
class Logs {
  readonly text = new Map<string, string>();
  locate(ref: LogRef): string {
    return ref.kind === 'run' ? 'run' : `${ref.exec.node}.${ref.stream}`;
  }
  async page(ref: LogRef, q: LogQuery): Promise<LogPage | undefined> {
    const t = this.text.get(this.locate(ref));
    if (t === undefined) return undefined;
    const all = t === '' ? [] : (t.endsWith('\n') ? t.slice(0, -1) : t).split('\n');
    const limit = q.limit ?? 10_000;
    const first = q.tail !== undefined ? Math.max(1, all.length - q.tail + 1) : (q.offset ?? 1);
    const lines = all.slice(first - 1, first - 1 + limit);
    return { content: lines.join('\n'), lineCount: lines.length, totalLines: all.length, hasMore: q.tail !== undefined ? first > 1 : first - 1 + lines.length < all.length, isEstimate: false };
  }
}

let version = 100;
function run(status: RunStatus, step: NodeStatus): DagRunResource {
  const definition = mkDag([mkStep('talk')], { name: 'd' });
  const state = newRunState(definition);
  state.status = status;
  state.nodes[0]!.status = step;
  state.nodes[0]!.attempt = step === NodeStatus.NotStarted ? 0 : 1;
  const root = { name: 'd', dagRunId: 'r1' };
  return {
    apiVersion: API_VERSION, kind: 'DagRun',
    metadata: { ...dagRunMetadata({ dagName: 'd', dagRunId: 'r1' }, root), uid: 'u', resourceVersion: String(++version), creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { dagName: 'd', dagRunId: 'r1', definition, localDags: {}, params: '', trigger: 'manual', workingDir: '/tmp', root },
    status: { attemptId: 'att-1', queuedAt: '', run: state },
  };
}

let feed: Feed;
let logs: Logs;
let current: DagRunResource;
let api: EventsApi;
let server: Server;
let base: string;
const clients: SseClient[] = [];
const open = async (path: string): Promise<SseClient> => {
  const c = await SseClient.open(`${base}/api/v2${path}`);
  clients.push(c);
  return c;
};
const change = (r: DagRunResource): void => {
  current = r;
  feed.emit(r);
};

beforeEach(async () => {
  feed = new Feed();
  logs = new Logs();
  current = run(RunStatus.Running, NodeStatus.Running);
  api = eventsApi({
    feed, logs: logs as unknown as LogStore, heartbeatMs: 50, pollMinMs: 20, pollMaxMs: 50, maxStreams: 3,
    store: { list: async () => [current] },
    runs: {
      get: async (k: RunKey) => {
        if (runKeyText(k) !== 'd/r1' && runKeyText(k) !== 'd/latest') throw new NotFoundError('no such run');
        return current;
      },
      stop: async () => undefined,
    },
  });
  const app = createApp({ log: { info: () => undefined, warn: () => undefined, error: () => undefined }, routers: api.routers });
  server = await new Promise<Server>((res) => { const s = app.listen(0, '127.0.0.1', () => res(s)); });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  api.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('heartbeat comments keep an idle stream alive', async () => {
  const s = await open('/events/dag-runs');
  await s.next('snapshot');
  await s.until(() => s.comments >= 3, 'three heartbeats', 2000);
});

test('a line written in pieces: sent as it is, sent again from its start when it grew; `end` after the last piece', async () => {
  logs.text.set('talk.stdout', 'one\ntw');
  const s = await open('/events/dag-runs/d/r1/steps/talk/log');
  await s.next('log');
  expect(s.events[0]!.data).toEqual({ offset: 1, lines: ['one', 'tw'] });
  logs.text.set('talk.stdout', 'one\ntwo\nthr');
  await s.next('log', (d) => d.lines.includes('thr'));
  expect(s.events[1]!.data).toEqual({ offset: 2, lines: ['two', 'thr'] });
  logs.text.set('talk.stdout', 'one\ntwo\nthree\n');
  change(run(RunStatus.Succeeded, NodeStatus.Succeeded));
  await s.closedByServer(2000);
  expect(s.events.map((e) => [e.event, e.id, e.data])).toEqual([
    ['log', '2', { offset: 1, lines: ['one', 'tw'] }],
    ['log', '3', { offset: 2, lines: ['two', 'thr'] }],
    ['log', '3', { offset: 3, lines: ['three'] }],
    ['end', '3', { status: 4, statusLabel: 'succeeded', totalLines: 3 }],
  ]);
});

test('a step not started yet: the tail waits for it, and a step that never runs ends at once with its status', async () => {
  current = run(RunStatus.Running, NodeStatus.NotStarted);
  const s = await open('/events/dag-runs/d/r1/steps/talk/log');
  await new Promise((r) => setTimeout(r, 150));
  expect(s.events).toEqual([]);
  logs.text.set('talk.stdout', 'hi\n');
  change(run(RunStatus.Running, NodeStatus.Running));
  await s.next('log');
  change(run(RunStatus.Aborted, NodeStatus.Skipped));
  await s.closedByServer(2000);
  expect(s.events[s.events.length - 1]!.data).toEqual({ status: 5, statusLabel: 'skipped', totalLines: 1 });
});

test('a one-run stream passes status changes only; a client that leaves frees its slot; close() ends every stream', async () => {
  const s = await open('/events/dag-runs?name=d&dagRunId=r1');
  await s.next('snapshot');
  const same = run(RunStatus.Running, NodeStatus.Running);
  change(same);
  change(run(RunStatus.Running, NodeStatus.Succeeded));
  await s.next('dag-run');
  await new Promise((r) => setTimeout(r, 50));
  expect(s.events.map((e) => e.event)).toEqual(['snapshot', 'dag-run']);
  expect(s.events[1]!.data.dagRun.nodes[0].statusLabel).toBe('succeeded');

  const more = [await open('/events/dag-runs'), await open('/events/dag-runs')];
  expect(api.openStreams()).toBe(3);
  expect((await open('/events/dag-runs')).status).toBe(503);
  more[0]!.close();
  await eventually(async () => api.openStreams() === 2, 'the slot freed', 2000);
  expect((await open('/events/dag-runs')).status).toBe(200);
  api.close();
  await s.closedByServer(2000);
  expect(api.openStreams()).toBe(0);
});
