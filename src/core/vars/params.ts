/**
 * DAG parameters (SPEC 2.1, 2.2 `params`; dagu-behaviour 4 "Positional params", "Param override", "JSON params").
 * Defaults are evaluated in order when a run starts (evaluateParams); the values a start passes are data,
 * taken as written (ADR 0018).
 */
import type { EnvEntry, ParamDef } from '../spec/types.js';
import { paramNameProblem } from '../spec/param-names.js';
import { expandAll, type Lookup, type RunCommand } from './expand.js';

export interface ParamToken {
  /** Absent for a positional value. */
  name?: string;
  value: string;
}

export interface ResolvedParams {
  positional: string[];
  named: Record<string, string>;
  /** Every parameter in definition order; overrides replace in place, new ones are appended. */
  ordered: ParamToken[];
  /** The SVC_PARAMS_JSON payload (SPEC 2.1). */
  json: string;
}

/** A named word: like Dagu, the name may hold any character but whitespace, `=` and quotes; it must start like an identifier. */
const NAME_PREFIX = /[A-Za-z_][^\s="'`$]*=/y;
const SPACE = /\s/;
const DQ_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r' };

/**
 * Reads a double-quoted section starting after the opening quote. `\n`, `\t`, `\r` become control characters,
 * `\"` and `\\` the character itself; `\$` and `` \` `` stay escaped so later expansion still treats them as literal.
 * Returns the text and the index after the closing quote (end of input when unterminated).
 */
function readDoubleQuoted(s: string, start: number): [string, number] {
  let out = '';
  let i = start;
  while (i < s.length && s[i] !== '"') {
    const c = s[i] as string;
    const next = s[i + 1];
    if (c === '\\' && next !== undefined) {
      out += next === '$' || next === '`' ? c + next : (DQ_ESCAPES[next] ?? next);
      i += 2;
    } else {
      out += c;
      i += 1;
    }
  }
  return [out, i + 1];
}

/** Reads one closed section (`'...'` literal, `` `...` `` kept with its backquotes for later substitution). */
function readUntil(s: string, start: number, close: string, keepDelims: boolean): [string, number] {
  const end = s.indexOf(close, start);
  const stop = end === -1 ? s.length : end;
  const body = s.slice(start, stop);
  return [keepDelims ? close + body + (end === -1 ? '' : close) : body, stop + 1];
}

/** Reads one shell word from `i` up to unquoted whitespace; quoted sections may sit anywhere inside the word. */
function readWord(s: string, start: number): [string, number] {
  let out = '';
  let i = start;
  while (i < s.length && !SPACE.test(s[i] as string)) {
    const c = s[i] as string;
    let part: [string, number];
    if (c === '"') part = readDoubleQuoted(s, i + 1);
    else if (c === "'") part = readUntil(s, i + 1, "'", false);
    else if (c === '`') part = readUntil(s, i + 1, '`', true);
    else part = [c, i + 1];
    out += part[0];
    i = part[1];
  }
  return [out, i];
}

/**
 * Shell-like split of `a "b c" K=v K2="x y" K3='z'` into positional (no name) and named values.
 * A word is named when it starts, unquoted, with a name followed by `=` (see NAME_PREFIX).
 * Unterminated quotes run to the end of the input rather than failing: params come from users typing in a form.
 */
export function parseParamString(s: string): ParamToken[] {
  const out: ParamToken[] = [];
  let i = 0;
  while (i < s.length) {
    if (SPACE.test(s[i] as string)) {
      i += 1;
      continue;
    }
    NAME_PREFIX.lastIndex = i;
    const m = NAME_PREFIX.exec(s);
    const [value, next] = readWord(s, m ? i + m[0].length : i);
    out.push(m ? { name: m[0].slice(0, -1), value } : { value });
    i = next;
  }
  return out;
}

/** A value as one single-quoted word of a params string: taken as written, whatever it holds (`'` as `'"'"'`). */
const quoteWord = (v: string): string => `'${v.replace(/'/g, `'"'"'`)}'`;

/** The params string that parseParamString reads back as `tokens`, every value exactly as given. */
export function paramString(tokens: ParamToken[]): string {
  return tokens.map((t) => (t.name === undefined ? quoteWord(t.value) : `${t.name}=${quoteWord(t.value)}`)).join(' ');
}

/** Parses raw JSON parameters: an object gives named values, an array positional ones; anything else is not JSON params. */
function parseJsonParams(text: string): ParamToken[] | undefined {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(t);
  } catch {
    return undefined;
  }
  const str = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
  if (Array.isArray(parsed)) return parsed.map((v) => ({ value: str(v) }));
  if (parsed === null || typeof parsed !== 'object') return undefined;
  return Object.entries(parsed).map(([name, v]) => ({ name, value: str(v) }));
}

/**
 * Named overrides replace the default of the same name (unknown names are appended); the k-th positional override
 * replaces the k-th positional default (extra ones are appended).
 *
 * Dagu counts the index over the whole override string (`NAME=bob third` overrides `$2`); svc counts positional
 * values only, so `$1` always means the first positional value wherever named ones sit.
 */
function applyOverrides(base: ParamToken[], overrides: ParamToken[]): ParamToken[] {
  const out = base.map((p) => ({ ...p }));
  const positionalSlots = out.filter((p) => p.name === undefined);
  let k = 0;
  for (const o of overrides) {
    const slot = o.name === undefined ? positionalSlots[k++] : out.find((p) => p.name === o.name);
    if (slot) slot.value = o.value;
    else out.push({ ...o });
  }
  return out;
}

/**
 * Default SVC_PARAMS_JSON: an object of the named params (keys sorted, like Dagu's payload, so it does not depend
 * on definition order) plus the positional ones under "1", "2", ... (JSON objects list integer keys first).
 * All values are strings.
 */
function paramsJson(named: Record<string, string>, positional: string[]): string {
  const entries: Array<[string, string]> = Object.keys(named).sort().map((k) => [k, named[k] as string]);
  positional.forEach((v, i) => entries.push([String(i + 1), v]));
  return JSON.stringify(Object.fromEntries(entries));
}

function finish(ordered: ParamToken[], rawJson?: string): ResolvedParams {
  const positional = ordered.filter((p) => p.name === undefined).map((p) => p.value);
  const named = Object.fromEntries(ordered.flatMap((p) => (p.name === undefined ? [] : [[p.name, p.value]])));
  return { positional, named, ordered, json: rawJson ?? paramsJson(named, positional) };
}

/**
 * Defaults from `defs`, then the run's override string. Raw JSON overrides (an object or array) are merged the same
 * way and their text is kept byte for byte as `json` (SPEC 2.1: the payload is preserved verbatim).
 */
export function resolveParams(defs: ParamDef[], override?: string): ResolvedParams {
  const base: ParamToken[] = defs.map((d) => (d.name === undefined ? { value: d.default } : { name: d.name, value: d.default }));
  if (override === undefined || override.trim() === '') return finish(base);
  const fromJson = parseJsonParams(override);
  if (fromJson) return finish(applyOverrides(base, fromJson), override);
  return finish(applyOverrides(base, parseParamString(override)));
}

/** The first named param of `tokens` whose name paramNameProblem refuses, as its message. */
export function paramNamesProblem(tokens: ParamToken[]): string | undefined {
  for (const t of tokens) {
    const problem = t.name === undefined ? undefined : paramNameProblem(t.name);
    if (problem) return problem;
  }
  return undefined;
}

/** Why a start's params string cannot be used (a name param-names.ts refuses), or undefined. */
export function startParamsProblem(override: string | undefined): string | undefined {
  if (override === undefined || override.trim() === '') return undefined;
  return paramNamesProblem(parseJsonParams(override) ?? parseParamString(override));
}

/** Named params as variables of their name, positional ones as `1`, `2`, ... for `$1`-style expansion. */
export function paramsToEnv(p: ResolvedParams): EnvEntry[] {
  let k = 0;
  return p.ordered.map((t) => ({ name: t.name ?? String(++k), value: t.value }));
}

/**
 * The run's params with their defaults evaluated first, in order, as the reference evaluates them: each
 * default sees the defaults before it (`MSG: "${GREETING}, ${TARGET}"`), then `base` (dotenv, the
 * system environment); shell expansions (`${V:-x}`) and backquotes are evaluated, unknown names read
 * as empty. Then the start's values replace them, as written: a dependant keeps its evaluated default.
 */
export async function evaluateParams(defs: ParamDef[], override: string | undefined, base: Lookup, runCommand: RunCommand): Promise<ResolvedParams> {
  const soFar = new Map<string, string>();
  const evaluated: ParamDef[] = [];
  let k = 0;
  for (const d of defs) {
    const value = await expandAll(d.default, (n) => soFar.get(n) ?? base(n), runCommand, { keepUnknown: false, shellForms: true });
    evaluated.push({ ...d, default: value });
    soFar.set(d.name ?? String(++k), value);
  }
  return resolveParams(evaluated, override);
}

/**
 * A run's params as the reference shows them in a sub-DAG's result: its (evaluated) defaults with the
 * start's values over them, as `NAME=value` words, positional values named by their place (`1=x`).
 */
export function paramsDisplay(params: ResolvedParams): string {
  let k = 0;
  return params.ordered.map((t) => `${t.name ?? String(++k)}=${t.value}`).join(' ');
}
