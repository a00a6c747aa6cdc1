/** What the event stream routers are built from (ports and engine interfaces, never adapters). */
import type { LogStore } from '../../core/ports/log-store.js';
import type { RunFeed } from '../../core/ports/run-feed.js';
import type { RunStore } from '../../core/ports/run-store.js';
import type { RunsApi } from '../../engine/services/api.js';

export interface EventsOptions {
  /** Changes of every run, by any process (embedded: the run files; kubernetes: the DagRun watch). */
  feed: RunFeed;
  /** Snapshots of the run list (newest first, bounded). */
  store: Pick<RunStore, 'list'>;
  /** One run by key (`latest` allowed); NotFoundError when absent. */
  runs: RunsApi;
  logs: LogStore;
  /** Concurrent event streams of this server, over both endpoints (default 100). */
  maxStreams?: number;
  /** Interval of heartbeat comments (default 15 s). */
  heartbeatMs?: number;
  /** Log tails poll the log store between these bounds (ms): the shortest after new lines, backing off while none come. */
  pollMinMs?: number;
  pollMaxMs?: number;
}

export const DEFAULT_MAX_STREAMS = 100;
export const DEFAULT_HEARTBEAT_MS = 15_000;
