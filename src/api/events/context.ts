/** What both event routers share: the hub, the stream cap, the options with their defaults. */
import type { Request, Response } from 'express';
import type { LogStore } from '../../core/ports/log-store.js';
import type { RunStore } from '../../core/ports/run-store.js';
import type { RunsApi } from '../../engine/services/api.js';
import { DEFAULT_HEARTBEAT_MS, DEFAULT_MAX_STREAMS, type EventsOptions } from './deps.js';
import { RunChangeHub } from './run-hub.js';
import { StreamSlots } from './slots.js';
import { SseStream } from './sse.js';

export interface EventsContext {
  hub: RunChangeHub;
  slots: StreamSlots;
  store: Pick<RunStore, 'list'>;
  runs: RunsApi;
  logs: LogStore;
  heartbeatMs: number;
  pollMinMs: number;
  pollMaxMs: number;
  /** Streams open now (ended when the server stops: a stream never holds up a shutdown). */
  open: Set<SseStream>;
}

export function eventsContext(o: EventsOptions): EventsContext {
  return {
    hub: new RunChangeHub(o.feed), slots: new StreamSlots(o.maxStreams ?? DEFAULT_MAX_STREAMS),
    store: o.store, runs: o.runs, logs: o.logs,
    heartbeatMs: o.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, pollMinMs: o.pollMinMs ?? 200, pollMaxMs: o.pollMaxMs ?? 1000,
    open: new Set(),
  };
}

/** Opens the event stream of a response; `cleanup` runs once when it ends (the client left, or the server ended it). */
export function openStream(ctx: EventsContext, res: Response, cleanup: () => void): SseStream {
  const sse = new SseStream(res, { heartbeatMs: ctx.heartbeatMs });
  ctx.open.add(sse);
  sse.onClose(() => {
    ctx.open.delete(sse);
    cleanup();
  });
  return sse;
}

/** The `Last-Event-ID` a reconnecting EventSource sends: a non-negative integer, else undefined. */
export function lastEventId(req: Request): number | undefined {
  const v = req.get('last-event-id');
  if (v === undefined || !/^\d{1,15}$/.test(v.trim())) return undefined;
  return Number(v.trim());
}
