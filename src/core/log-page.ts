/** A SPEC 2.8 log page of a text held whole (the in-memory log store; the file store streams instead). */
import { MAX_LOG_LINES, type LogPage, type LogQuery } from './ports/log-store.js';

/** Lines of a log: a trailing newline ends the last line, it does not start an empty one. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

export function pageOfText(text: string, q: LogQuery): LogPage {
  const all = linesOf(text);
  const limit = Math.min(q.limit ?? MAX_LOG_LINES, MAX_LOG_LINES);
  let first: number;
  let count: number;
  if (q.head !== undefined) [first, count] = [0, Math.min(q.head, limit)];
  else if (q.tail !== undefined) { count = Math.min(q.tail, limit); first = Math.max(0, all.length - count); }
  else [first, count] = [(q.offset ?? 1) - 1, limit];
  const lines = all.slice(first, first + count);
  const hasMore = q.tail !== undefined ? first > 0 : first + lines.length < all.length;
  return { content: lines.join('\n'), lineCount: lines.length, totalLines: all.length, hasMore, isEstimate: false };
}
