/** The event stream routers (server-sent events for the web UI; docs/api.md "Event streams"). */
import type { Router } from 'express';
import { ClientStreamSlots, clientSlotsRouter } from './client-slots.js';
import { eventsContext } from './context.js';
import type { EventsOptions } from './deps.js';
import { runEventsRouter } from './runs.js';
import { stepLogEventsRouter } from './step-log.js';

export type { EventsOptions } from './deps.js';

export interface EventsApi {
  routers: Router[];
  /** Streams open now. */
  openStreams(): number;
  /** Ends every open stream (server shutdown). */
  close(): void;
}

export function eventsApi(o: EventsOptions): EventsApi {
  const ctx = eventsContext(o);
  return {
    routers: [clientSlotsRouter(new ClientStreamSlots()), runEventsRouter(ctx), stepLogEventsRouter(ctx)],
    openStreams: () => ctx.open.size,
    close: () => { for (const s of [...ctx.open]) s.end(); },
  };
}
