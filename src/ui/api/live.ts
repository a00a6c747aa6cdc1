/**
 * Live pages: the one place that decides how the UI learns that a run changed. With an `events` path
 * (an /api/v2/events stream), every event refetches the queries under `key` (at most every 250 ms), and a
 * slow poll stays as a safety net; without one, or while the stream cannot be opened, they are refetched
 * every second while `active`.
 */
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect } from 'react';
import { readEvents } from './events';

export const POLL_MS = 1000;
/** The poll beside a working event stream: catches what a stream cannot see (a renamed DAG, a restart). */
export const SAFETY_POLL_MS = 5000;
const THROTTLE_MS = 250;

export function useLive(key: QueryKey, active: boolean, events?: string): void {
  const qc = useQueryClient();
  const hash = JSON.stringify(key);
  useEffect(() => {
    if (!active) return undefined;
    const queryKey = JSON.parse(hash) as QueryKey;
    const refresh = (): void => void qc.invalidateQueries({ queryKey });
    let pollMs = events ? SAFETY_POLL_MS : POLL_MS;
    let timer = setInterval(refresh, pollMs);
    const poll = (ms: number): void => {
      if (ms === pollMs) return;
      clearInterval(timer);
      pollMs = ms;
      timer = setInterval(refresh, ms);
    };
    const abort = new AbortController();
    if (events) {
      let pending: ReturnType<typeof setTimeout> | undefined;
      const onEvent = (): void => {
        pending ??= setTimeout(() => { pending = undefined; refresh(); }, THROTTLE_MS);
      };
      // A stream that cannot be opened or breaks: back to polling every second.
      readEvents(events, onEvent, abort.signal).catch(() => undefined).finally(() => { if (!abort.signal.aborted) poll(POLL_MS); });
    }
    // Once more when the run stops being active: what it wrote last is then read too.
    return () => {
      abort.abort();
      clearInterval(timer);
      refresh();
    };
  }, [qc, hash, active, events]);
}
