/**
 * Readers of expanded config values. Expansion turns `${PORT}` into the string "6380", so numbers and
 * booleans are accepted as written or as their text; a bad value is a StepError naming the field.
 */
import { StepError } from '../runner.js';

export type Config = Record<string, unknown>;

const fail = (path: string, what: string): never => {
  throw new StepError(`redis step: ${path} must be ${what}`);
};

export function isGiven(v: unknown): boolean {
  return v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
}

export function optString(o: Config, field: string, path = `config.${field}`): string | undefined {
  const v = o[field];
  if (!isGiven(v)) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return fail(path, 'a string');
}

export function optInt(o: Config, field: string, range: { min?: number; max?: number } = {}, path = `config.${field}`): number | undefined {
  const v = o[field];
  if (!isGiven(v)) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  const { min = -Infinity, max = Infinity } = range;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const bounds = min > -Infinity && max < Infinity ? ` from ${min} to ${max}` : min > -Infinity ? ` of at least ${min}` : '';
    return fail(path, `an integer${bounds}`);
  }
  return n;
}

export function optNumber(o: Config, field: string, path = `config.${field}`): number | undefined {
  const v = o[field];
  if (!isGiven(v)) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : fail(path, 'a number');
}

export function optBool(o: Config, field: string, path = `config.${field}`): boolean | undefined {
  const v = o[field];
  if (!isGiven(v)) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  return fail(path, 'true or false');
}

/** A list of strings; a string (what `${VAR}` expands to) is split on commas and whitespace. */
export function optList(o: Config, field: string, path = `config.${field}`): string[] | undefined {
  const v = o[field];
  if (!isGiven(v)) return undefined;
  if (typeof v === 'string') return v.split(/[\s,]+/).filter((s) => s !== '');
  if (!Array.isArray(v)) return fail(path, 'a list');
  return v.map((x, i) => toArg(x, `${path}[${i}]`));
}

/**
 * One Redis argument from a config value: strings as written, numbers as digits, booleans as 1 and 0
 * (as the reference sends them), objects and lists as JSON text (a value stored as a JSON document).
 */
export function toArg(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (v === null || v === undefined) return fail(path, 'a value (it is empty)');
  return JSON.stringify(v);
}

/** A list of arguments: a list of values, or a single value as one argument. */
export function argList(o: Config, field: string, path: string): string[] {
  const v = o[field];
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v.map((x, i) => toArg(x, `${path}[${i}]`)) : [toArg(v, path)];
}

/** A map of hash fields (or MSET keys) to values as alternating arguments, in the order written. */
export function pairArgs(o: Config, field: string, path: string): string[] {
  const v = o[field];
  if (v === undefined || v === null) return [];
  if (typeof v !== 'object' || Array.isArray(v)) return fail(path, 'a map of names to values');
  return Object.entries(v as Config).flatMap(([k, x]) => [k, toArg(x, `${path}.${k}`)]);
}
