/**
 * Live pages: the one place that decides how the UI learns that a run changed. Today it polls (the
 * queries under `key` are refetched every second while `active`); with the server-sent events of
 * /api/v2/events, the body of useLive becomes a subscription that invalidates the same keys on an event,
 * and no page changes.
 */
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect } from 'react';

export const POLL_MS = 1000;

export function useLive(key: QueryKey, active: boolean): void {
  const qc = useQueryClient();
  const hash = JSON.stringify(key);
  useEffect(() => {
    if (!active) return undefined;
    const queryKey = JSON.parse(hash) as QueryKey;
    const timer = setInterval(() => void qc.invalidateQueries({ queryKey }), POLL_MS);
    // Once more when the run stops being active: what it wrote last is then read too.
    return () => {
      clearInterval(timer);
      void qc.invalidateQueries({ queryKey });
    };
  }, [qc, hash, active]);
}
