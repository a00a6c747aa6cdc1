/**
 * Query parameters of a database step: from `config.params` (a map: named `:name` parameters; a list:
 * positional `$1`/`?` parameters) or the step's `params` (a map, or a string `a b` of positional values
 * or `K=v K2=v2` of named ones, `${VAR}` expanded here since the engine leaves step params as written).
 * Values are always bound by the driver, never put into the SQL text: `:name` becomes `$n` (postgres)
 * or `?n` (sqlite), the same number for every use of the name.
 */
import { parseParamString } from '../../../core/spec/params.js';
import { expandVars } from '../../../core/vars/expand.js';
import { StepError } from '../runner.js';
import type { Dialect, Statement } from './split.js';

export type Params =
  | { kind: 'none' }
  | { kind: 'named'; values: ReadonlyMap<string, unknown> }
  | { kind: 'positional'; values: readonly unknown[] };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function fromString(text: string, expand: (s: string) => string, type: string): Params {
  const defs = parseParamString(text);
  if (defs.length === 0) return { kind: 'none' };
  const named = defs.filter((d) => d.name !== undefined);
  if (named.length === defs.length) return { kind: 'named', values: new Map(named.map((d) => [d.name!, expand(d.default ?? '')])) };
  if (named.length === 0) return { kind: 'positional', values: defs.map((d) => expand(d.default ?? '')) };
  throw new StepError(`${type} step: params mixes positional values and NAME=value pairs: use one kind`);
}

function expandValue(v: unknown, expand: (s: string) => string): unknown {
  return typeof v === 'string' ? expand(v) : v;
}

/**
 * The step's parameters. `config` values are expanded already; `stepParams` are not (`env` is the
 * step's environment: params, env, secrets, outputs of earlier steps).
 */
export function stepParams(type: string, config: Record<string, unknown>, stepParams: unknown, env: Record<string, string>): Params {
  const own = config.params;
  const expand = (s: string): string => expandVars(s, (n) => env[n]);
  if (own !== undefined && own !== null && stepParams !== undefined) {
    throw new StepError(`${type} step: params and config.params are both set: give the parameters in one of them`);
  }
  if (Array.isArray(own)) return { kind: 'positional', values: own };
  if (isObject(own)) return { kind: 'named', values: new Map(Object.entries(own)) };
  if (own !== undefined && own !== null) throw new StepError(`${type} step: config.params must be a map (named :name parameters) or a list (positional)`);
  if (typeof stepParams === 'string') return fromString(stepParams, expand, type);
  if (isObject(stepParams)) return { kind: 'named', values: new Map(Object.entries(stepParams).map(([k, v]) => [k, expandValue(v, expand)])) };
  return { kind: 'none' };
}

export interface Bound {
  sql: string;
  values: unknown[];
  /** A position (0-based) in `sql` back to the statement's own text, for error positions. */
  original(pos: number): number;
}

/** Named placeholders replaced by numbered ones; the values the statement needs, in order. */
function bindNamed(stmt: Statement, values: ReadonlyMap<string, unknown>, dialect: Dialect, where: string): Bound {
  const numbers = new Map<string, number>();
  const ordered: unknown[] = [];
  const shifts: { at: number; delta: number }[] = [];
  let sql = '';
  let last = 0;
  for (const p of stmt.placeholders) {
    if (p.name === undefined) continue;
    if (!values.has(p.name)) throw new StepError(`${where}: parameter :${p.name} has no value (params: ${[...values.keys()].join(', ') || 'none'})`);
    let n = numbers.get(p.name);
    if (n === undefined) {
      ordered.push(values.get(p.name));
      n = ordered.length;
      numbers.set(p.name, n);
    }
    const mark = `${dialect === 'postgres' ? '$' : '?'}${n}`;
    sql += stmt.text.slice(last, p.start);
    shifts.push({ at: sql.length + mark.length, delta: p.end - p.start - mark.length });
    sql += mark;
    last = p.end;
  }
  sql += stmt.text.slice(last);
  const original = (pos: number): number => pos + shifts.filter((s) => s.at <= pos).reduce((d, s) => d + s.delta, 0);
  return { sql, values: ordered, original };
}

/** The statement with its parameters: only the values it uses (a driver refuses extra ones). */
export function bindStatement(stmt: Statement, params: Params, dialect: Dialect, where: string): Bound {
  const same = (pos: number): number => pos;
  const named = stmt.placeholders.filter((p) => p.name !== undefined);
  if (params.kind === 'named') {
    const positional = stmt.placeholders.find((p) => p.index !== undefined);
    if (positional) throw new StepError(`${where}: ${stmt.text.slice(positional.start, positional.end)} is a positional placeholder, but params is a map of names (use :name)`);
    return bindNamed(stmt, params.values, dialect, where);
  }
  if (named.length > 0) throw new StepError(`${where}: parameter :${named[0]!.name} has no value (the step has ${params.kind === 'none' ? 'no params' : 'positional params only'})`);
  const needed = Math.max(0, ...stmt.placeholders.map((p) => p.index ?? 0));
  if (needed === 0) return { sql: stmt.text, values: [], original: same };
  const given = params.kind === 'positional' ? params.values : [];
  if (given.length < needed) throw new StepError(`${where}: the statement uses ${needed} positional parameter${needed > 1 ? 's' : ''}, params has ${given.length}`);
  return { sql: stmt.text, values: given.slice(0, needed), original: same };
}
