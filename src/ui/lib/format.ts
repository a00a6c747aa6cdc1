/** Times and durations as the pages print them. API timestamps are RFC 3339, or "" when not happened. */

export function parseTime(ts: string | undefined): number | undefined {
  if (!ts) return undefined;
  const t = Date.parse(ts);
  return Number.isFinite(t) ? t : undefined;
}

/** Local date and time to the second, or an em dash. */
export function formatTime(ts: string | undefined): string {
  const t = parseTime(ts);
  if (t === undefined) return '—';
  const d = new Date(t);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** 950 -> "950ms", 61000 -> "1m 1s", 3723000 -> "1h 2m 3s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [h ? `${h}h` : '', h || m ? `${m}m` : '', `${s % 60}s`];
  return parts.filter(Boolean).join(' ');
}

/** From start to finish, or to `now` while unfinished; an em dash before the start. */
export function elapsed(startedAt: string | undefined, finishedAt: string | undefined, now: number): string {
  const start = parseTime(startedAt);
  if (start === undefined) return '—';
  return formatDuration((parseTime(finishedAt) ?? now) - start);
}

/**
 * The exit code of a step, read from its error ("exit status 2"), 0 for a success, else undefined.
 * (The node record carries no exit code field yet.)
 */
export function exitCodeOf(node: { statusLabel: string; error: string; exitCode?: number }): number | undefined {
  if (typeof node.exitCode === 'number') return node.exitCode;
  const m = /exit status (\d+)/.exec(node.error);
  if (m?.[1]) return Number(m[1]);
  return node.statusLabel === 'succeeded' ? 0 : undefined;
}
