/** schedule (SPEC 2.2): string, list, or {start, stop, restart}; 5-field cron with an optional zone prefix. */
import { CronExpressionParser } from 'cron-parser';
import type { CronEntry, Schedule } from './types.js';
import type { Problems } from './errors.js';
import { at, idx } from './errors.js';
import { isObj } from './values.js';

const ZONE_PREFIX = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/s;
/** A fixed base date: parsing must not read the clock. */
const BASE_DATE = new Date(Date.UTC(2000, 0, 1));

function isValidZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Why a bare expression is not a valid 5-field cron expression, or undefined. */
export function cronProblem(expression: string, timezone?: string): string | undefined {
  if (expression.startsWith('@')) return `"${expression}": descriptors such as @daily are not supported; use 5 fields`;
  const fields = expression.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) return `"${expression}": must have 5 fields (minute hour day-of-month month day-of-week)`;
  try {
    CronExpressionParser.parse(expression, { currentDate: BASE_DATE, ...(timezone ? { tz: timezone } : {}) });
    return undefined;
  } catch (err) {
    return `"${expression}": ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Parses one entry such as `CRON_TZ=Asia/Tokyo 0 9 * * *`; reports problems and returns undefined when invalid. */
export function parseCronEntry(raw: string, path: string, problems: Problems): CronEntry | undefined {
  const text = raw.trim();
  const m = ZONE_PREFIX.exec(text);
  const timezone = m?.[1];
  const expression = (m?.[2] ?? text).trim();
  if (timezone !== undefined && !isValidZone(timezone)) {
    problems.add(path, `unknown time zone "${timezone}"`);
    return undefined;
  }
  const problem = cronProblem(expression, timezone);
  if (problem) {
    problems.add(path, `invalid cron expression ${problem}`);
    return undefined;
  }
  return timezone === undefined ? { expression, raw } : { expression, timezone, raw };
}

function entries(raw: unknown, path: string, problems: Problems): CronEntry[] {
  const items: Array<[string, unknown]> = Array.isArray(raw) ? raw.map((v, i) => [idx(path, i), v]) : [[path, raw]];
  const out: CronEntry[] = [];
  for (const [where, v] of items) {
    if (typeof v !== 'string') continue;
    const entry = parseCronEntry(v, where, problems);
    if (entry) out.push(entry);
  }
  return out;
}

export function parseSchedule(raw: unknown, path: string, problems: Problems): Schedule {
  if (raw === undefined) return { start: [], stop: [], restart: [] };
  if (!isObj(raw)) return { start: entries(raw, path, problems), stop: [], restart: [] };
  return {
    start: entries(raw.start ?? [], at(path, 'start'), problems),
    stop: entries(raw.stop ?? [], at(path, 'stop'), problems),
    restart: entries(raw.restart ?? [], at(path, 'restart'), problems),
  };
}

/**
 * The first tick of any entry strictly after `after` (ms): each entry in its CRON_TZ= zone, else `tz`
 * (the scheduler's rule). Undefined without entries. `after` is passed in: the core reads no clock.
 */
export function nextTick(entries: readonly CronEntry[], after: number, tz?: string): number | undefined {
  const ticks = entries.map((c) => {
    const zone = c.timezone ?? tz;
    return CronExpressionParser.parse(c.expression, { currentDate: new Date(after), ...(zone ? { tz: zone } : {}) }).next().getTime();
  });
  return ticks.length > 0 ? Math.min(...ticks) : undefined;
}
