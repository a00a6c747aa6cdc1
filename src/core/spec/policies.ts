/** Step policies (SPEC 2.3, 2.7): preconditions, continueOn, retryPolicy, repeatPolicy, parallel, output. */
import type { ContinueOn, OutputConfig, ParallelConfig, Precondition, RepeatPolicy, RetryPolicy } from './types.js';
import type { Problems } from './errors.js';
import { at, idx } from './errors.js';
import { isValidVarName, toCamelKey } from './names.js';
import { bool, compact, int, intList, isObj, str, strList } from './values.js';

export const MAX_PARALLEL_ITEMS = 1000;

function precondition(raw: unknown): Precondition | undefined {
  if (typeof raw === 'string') return { condition: raw, negate: false };
  if (!isObj(raw)) return undefined;
  const condition = str(raw.condition) ?? str(raw.command);
  if (condition === undefined) return undefined;
  return compact<Precondition>({ condition, expected: str(raw.expected), negate: bool(raw.negate, false), error: str(raw.error) });
}

/** A string, one object or a list; an object needs condition or command. */
export function parsePreconditions(raw: unknown, path: string, problems: Problems): Precondition[] {
  const items: Array<[string, unknown]> = Array.isArray(raw) ? raw.map((v, i) => [idx(path, i), v]) : raw === undefined ? [] : [[path, raw]];
  const out: Precondition[] = [];
  for (const [where, v] of items) {
    if (isObj(v) && v.condition !== undefined && v.command !== undefined) problems.add(where, 'use either condition or command, not both');
    if (isObj(v) && v.condition === undefined && v.command === undefined) problems.add(at(where, 'condition'), 'is required');
    const p = precondition(v);
    if (p) out.push(p);
  }
  return out;
}

export function parseContinueOn(raw: unknown, path: string, problems: Problems): ContinueOn {
  const c: ContinueOn = { failure: false, skipped: false, exitCode: [], output: [], markSuccess: false };
  if (raw === 'skipped') return { ...c, skipped: true };
  if (raw === 'failed' || raw === 'failure') return { ...c, failure: true };
  if (!isObj(raw)) return c;
  if (raw.failure !== undefined && raw.failed !== undefined) problems.add(at(path, 'failed'), 'alias of failure: use only one of them');
  return {
    failure: bool(raw.failure, bool(raw.failed, false)), skipped: bool(raw.skipped, false),
    exitCode: intList(raw.exitCode), output: strList(raw.output), markSuccess: bool(raw.markSuccess, false),
  };
}

/** backoff: true = 2, false/absent = 1 (constant), or the number itself (the schema enforces > 1). */
function backoff(v: unknown): number {
  if (v === true) return 2;
  return typeof v === 'number' && v > 1 ? v : 1;
}

/** retryPolicy; intervalSec defaults to 0 (the reference requires it; SPEC does not). */
export function parseRetryPolicy(raw: unknown): RetryPolicy | undefined {
  if (!isObj(raw)) return undefined;
  return {
    limit: int(raw.limit, 0), intervalSec: int(raw.intervalSec, 0), backoff: backoff(raw.backoff),
    maxIntervalSec: int(raw.maxIntervalSec, 0), exitCode: intList(raw.exitCode),
  };
}

function repeatMode(raw: Record<string, unknown>, path: string, problems: Problems): 'while' | 'until' | undefined {
  const hasTest = raw.condition !== undefined || raw.exitCode !== undefined;
  if (raw.repeat === 'while' || raw.repeat === 'until') {
    if (!hasTest) problems.add(at(path, 'repeat'), `"${raw.repeat}" needs condition or exitCode`);
    return raw.repeat;
  }
  if (raw.repeat === true) return 'while';
  if (raw.repeat === false) return undefined;
  // Legacy inference: condition with expected repeats until it matches; condition or exitCode alone, while.
  if (raw.condition !== undefined && raw.expected !== undefined) return 'until';
  if (hasTest) return 'while';
  problems.add(at(path, 'repeat'), 'is required (true, while or until) when no condition or exitCode is given');
  return undefined;
}

/** repeatPolicy; `repeat: false` means no repetition. */
export function parseRepeatPolicy(raw: unknown, path: string, problems: Problems): RepeatPolicy | undefined {
  if (!isObj(raw)) return undefined;
  if (raw.expected !== undefined && raw.condition === undefined) problems.add(at(path, 'expected'), 'needs condition');
  const mode = repeatMode(raw, path, problems);
  if (!mode) return undefined;
  return compact<RepeatPolicy>({
    mode, intervalSec: int(raw.intervalSec, 0), backoff: backoff(raw.backoff), maxIntervalSec: int(raw.maxIntervalSec, 0),
    limit: int(raw.limit, 0), condition: str(raw.condition), expected: str(raw.expected), exitCode: intList(raw.exitCode),
  });
}

type Item = string | number | boolean | Record<string, unknown>;

function parallelItems(v: unknown, path: string, problems: Problems): ParallelConfig['items'] | undefined {
  if (typeof v === 'string') {
    if (!/^\$\{?[A-Za-z_][A-Za-z0-9_.]*\}?$/.test(v.trim())) problems.add(path, 'must be a list or a ${VAR} reference');
    return v.trim();
  }
  if (!Array.isArray(v)) return undefined;
  if (v.length === 0) problems.add(path, 'must not be empty');
  if (v.length > MAX_PARALLEL_ITEMS) problems.add(path, `must have at most ${MAX_PARALLEL_ITEMS} items`);
  return v.filter((x): x is Item => ['string', 'number', 'boolean'].includes(typeof x) || isObj(x));
}

/** parallel: a list, a ${VAR} reference, or {items, maxConcurrent} (0 = no limit). */
export function parseParallel(raw: unknown, path: string, problems: Problems): ParallelConfig | undefined {
  if (isObj(raw)) {
    const items = parallelItems(raw.items, at(path, 'items'), problems);
    return items === undefined ? undefined : { items, maxConcurrent: int(raw.maxConcurrent, 0) };
  }
  const items = parallelItems(raw, path, problems);
  return items === undefined ? undefined : { items, maxConcurrent: 0 };
}

/** output: NAME, $NAME or {name, key, omit}; key defaults to camelCase of the name. */
export function parseOutput(raw: unknown, path: string, problems: Problems): OutputConfig | undefined {
  const o = typeof raw === 'string' ? { name: raw } : isObj(raw) ? raw : undefined;
  const written = str(o?.name);
  if (!o || written === undefined) return undefined;
  const name = written.trim().replace(/^\$/, '');
  const where = typeof raw === 'string' ? path : at(path, 'name');
  if (!isValidVarName(name)) {
    problems.add(where, `invalid variable name "${written}": letters, digits and "_", not starting with a digit`);
  }
  const key = str(o.key);
  if (key !== undefined && key.trim() === '') problems.add(at(path, 'key'), 'must not be empty');
  return { name, key: key || toCamelKey(name), omit: bool(o.omit, false) };
}
