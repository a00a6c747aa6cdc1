/** params, env and dotenv (SPEC 2.2): every accepted form to ordered lists; values kept as written. */
import type { EnvEntry, ParamDef } from './types.js';
import type { Problems } from './errors.js';
import { idx } from './errors.js';
import { isObj, scalarText, splitWords, unquote } from './values.js';
import { paramNameProblem } from './param-names.js';

/** A parameter value as text: scalars as written, null as '', structures as JSON. */
function valueText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return scalarText(v) ?? JSON.stringify(v);
}

/** `a b K=v K2="x y"`: words without `=` are positional, `NAME=value` words are named; quotes removed. */
export function parseParamString(s: string): ParamDef[] {
  return splitWords(s).map((word) => {
    const m = /^([^\s="`]+)=(.*)$/s.exec(word);
    return m ? { name: m[1] as string, default: unquote(m[2] as string) } : { default: unquote(word) };
  });
}

function namedFromText(text: string): ParamDef {
  const eq = text.indexOf('=');
  return eq < 0 ? { name: text.trim(), default: '' } : { name: text.slice(0, eq).trim(), default: unquote(text.slice(eq + 1)) };
}

/** A declared name follows the rule of a start's names (param-names.ts), so a start can set every param. */
function checkName(p: ParamDef, path: string, problems: Problems): boolean {
  const problem = p.name === undefined ? undefined : paramNameProblem(p.name);
  if (problem) problems.add(path, problem);
  return problem === undefined;
}

/** params as a string, a map, or a list of names, `NAME=default` strings and `NAME: default` maps. */
export function parseParams(raw: unknown, path: string, problems: Problems): ParamDef[] {
  if (typeof raw === 'string') return parseParamString(raw).filter((d) => checkName(d, path, problems));
  if (isObj(raw)) return Object.entries(raw).map(([name, v]) => ({ name, default: valueText(v) })).filter((d) => checkName(d, path, problems));
  if (!Array.isArray(raw)) return [];
  const out: ParamDef[] = [];
  raw.forEach((item, i) => {
    const where = idx(path, i);
    const defs = isObj(item)
      ? Object.entries(item).map(([name, v]) => ({ name, default: valueText(v) }))
      : scalarText(item) !== undefined ? [namedFromText(scalarText(item) as string)] : [];
    for (const d of defs) if (checkName(d, where, problems)) out.push(d);
  });
  return out;
}

function envFromText(text: string, path: string, problems: Problems): EnvEntry | undefined {
  const eq = text.indexOf('=');
  if (eq <= 0) {
    problems.add(path, `must be NAME=value or NAME: value, got "${text}"`);
    return undefined;
  }
  return { name: text.slice(0, eq).trim(), value: text.slice(eq + 1) };
}

function envFromMap(m: Record<string, unknown>, path: string, problems: Problems): EnvEntry[] {
  const out: EnvEntry[] = [];
  for (const [name, v] of Object.entries(m)) {
    if (name.trim() === '') problems.add(path, 'variable name must not be empty');
    else out.push({ name, value: valueText(v) });
  }
  return out;
}

/** env as a map or a list of `NAME: value` maps and `NAME=value` strings, order kept. */
export function parseEnv(raw: unknown, path: string, problems: Problems): EnvEntry[] {
  if (isObj(raw)) return envFromMap(raw, path, problems);
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((item, i): EnvEntry[] => {
    const where = idx(path, i);
    if (isObj(item)) return envFromMap(item, where, problems);
    if (typeof item !== 'string') return [];
    const e = envFromText(item, where, problems);
    return e ? [e] : [];
  });
}

/** dotenv: absent means ['.env']; otherwise `.env` first, then the listed files, deduplicated; [] means none. */
export function parseDotenv(raw: unknown): string[] {
  if (Array.isArray(raw) && raw.length === 0) return [];
  const listed = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
  return [...new Set(['.env', ...listed.map((f) => f.trim()).filter((f) => f !== '')])];
}

/** A shell given as "bash -e" or [bash, -e]. */
export function parseShell(raw: unknown): string[] | undefined {
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : splitWords(raw).map(unquote);
  if (Array.isArray(raw)) return raw.filter((x): x is string => typeof x === 'string');
  return undefined;
}

