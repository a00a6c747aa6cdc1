/** Small hooks the pages share. */
import { useEffect, useState } from 'react';

/** The current time, ticking every second while `ticking` (durations of running steps). */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

/** The document title while a page is shown. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · svc` : 'svc';
  }, [title]);
}
