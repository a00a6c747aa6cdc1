/**
 * The run timeline's geometry (components/run-timeline.tsx): each step's bar from its start to its finish
 * (to `now` while unfinished), as percentages of the span from the first start to the last end. Pure, so
 * it is tested without a browser.
 */
import { parseTime } from './format';

export interface TimelineInput {
  name: string;
  startedAt: string;
  finishedAt: string;
}

export interface Bar {
  name: string;
  /** Milliseconds from the timeline's start; undefined for a step that has not started. */
  fromMs?: number;
  toMs?: number;
  /** Percent of the span, the width at least MIN_WIDTH so a short step stays visible. */
  left: number;
  width: number;
  /** Not finished yet: the bar grows with `now`. */
  open: boolean;
}

export interface Timeline {
  startMs: number | undefined;
  spanMs: number;
  bars: Bar[];
}

export const MIN_WIDTH = 0.5;

export function timeline(steps: readonly TimelineInput[], now: number): Timeline {
  const times = steps.map((s) => {
    const from = parseTime(s.startedAt);
    const to = from === undefined ? undefined : Math.max(from, parseTime(s.finishedAt) ?? now);
    return { from, to, open: from !== undefined && parseTime(s.finishedAt) === undefined };
  });
  const starts = times.flatMap((t) => (t.from === undefined ? [] : [t.from]));
  const ends = times.flatMap((t) => (t.to === undefined ? [] : [t.to]));
  if (starts.length === 0) return { startMs: undefined, spanMs: 0, bars: steps.map((s) => ({ name: s.name, left: 0, width: 0, open: false })) };
  const start = Math.min(...starts);
  const span = Math.max(1, Math.max(...ends) - start);
  const bars = steps.map((s, i): Bar => {
    const t = times[i];
    if (t?.from === undefined || t.to === undefined) return { name: s.name, left: 0, width: 0, open: false };
    const left = Math.min(((t.from - start) / span) * 100, 100 - MIN_WIDTH);
    const width = Math.min(Math.max(MIN_WIDTH, ((t.to - t.from) / span) * 100), 100 - left);
    return { name: s.name, fromMs: t.from - start, toMs: t.to - start, left, width, open: t.open };
  });
  return { startMs: start, spanMs: span, bars };
}
