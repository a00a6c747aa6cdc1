/**
 * Which lines of a step log are on screen (SPEC 4.5 log paging): its tail, which follows a running step,
 * or a fixed page from a 1-based line. The server's page says how many lines it holds and how many the
 * log has; from those, where the page starts and which pages lie before and after it.
 */
import type { LogPage } from '../api/types';

export type LogWindow = { at: 'tail' } | { at: number };

export const TAIL: LogWindow = { at: 'tail' };

/** The query parameters of the window, `size` lines a page. */
export function logQuery(w: LogWindow, size: number): { tail: number } | { offset: number; limit: number } {
  return w.at === 'tail' ? { tail: size } : { offset: w.at, limit: size };
}

export interface LogPlace {
  /** First line shown (1-based; 0 for an empty page). */
  first: number;
  last: number;
  /** The window of the page before this one, and after it; undefined at either end. */
  earlier?: LogWindow;
  later?: LogWindow;
}

export function logPlace(w: LogWindow, page: Pick<LogPage, 'lineCount' | 'totalLines'>, size: number): LogPlace {
  const start = w.at === 'tail' ? Math.max(1, page.totalLines - page.lineCount + 1) : w.at;
  const first = page.lineCount > 0 ? start : 0;
  const last = page.lineCount > 0 ? start + page.lineCount - 1 : 0;
  const place: LogPlace = { first, last };
  if (start > 1) place.earlier = { at: Math.max(1, start - size) };
  if (w.at !== 'tail' && last < page.totalLines) place.later = { at: last + 1 };
  return place;
}
