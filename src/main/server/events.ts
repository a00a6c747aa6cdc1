/**
 * Wiring of the event streams (server-sent events: run status changes, step log tails). Where run
 * changes come from: embedded, the run files (LocalRunFeed: this process's saves at once, other
 * processes' through inotify and a rescan); kubernetes, the DagRun watch, which already feeds
 * base.events with every change the operator saves.
 */
import { LocalRunFeed } from '../../adapters/store/local/run-feed.js';
import { eventsApi } from '../../api/events/index.js';
import type { RunFeed } from '../../core/ports/run-feed.js';
import type { AreaParts, ServerBase } from './base.js';

/** Until the DagRun watch has listed (right after a start), its first events are every existing run: wait for it, briefly. */
async function watchSynced(base: ServerBase): Promise<void> {
  const store = base.engine.store as { whenSynced?: (timeoutMs?: number) => Promise<boolean> };
  await store.whenSynced?.(SYNC_WAIT_MS);
}

const SYNC_WAIT_MS = 5000;

export function wireEvents(base: ServerBase): AreaParts {
  const local = base.backend.name === 'embedded'
    ? new LocalRunFeed({ dataDir: base.config.dataDir, store: base.engine.store, local: (fn) => base.events.on(fn) })
    : undefined;
  const feed: RunFeed = local ?? { subscribe: (fn) => base.events.on(fn), ready: () => watchSynced(base) };
  const api = eventsApi({ feed, store: base.engine.store, runs: base.runs, logs: base.engine.logs });
  return {
    routers: api.routers,
    stop: () => {
      api.close();
      local?.close();
    },
  };
}
