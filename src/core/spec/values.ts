/** Small readers over parsed YAML values. The schema reports type errors; these only pick what is usable. */

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A scalar as text (numbers and booleans written without quotes in YAML); undefined otherwise. */
export function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

export function bool(v: unknown, fallback: boolean): boolean {
  return typeof v === 'boolean' ? v : fallback;
}

export function int(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isInteger(v) ? v : fallback;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A string or a list of strings as a list (other items dropped). */
export function strList(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) return [];
  return v.filter((x): x is string => typeof x === 'string');
}

/** A list of scalars as text (`ports: [8080, "9090:90"]`). */
export function scalarList(v: unknown): string[] {
  const items = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return items.map(scalarText).filter((x): x is string => x !== undefined);
}

/** An integer or a list of integers as a list. */
export function intList(v: unknown): number[] {
  const items = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return items.filter((x): x is number => typeof x === 'number' && Number.isInteger(x));
}

/** A map of scalar values as a map of strings. */
export function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObj(v)) return out;
  for (const [k, val] of Object.entries(v)) out[k] = scalarText(val) ?? '';
  return out;
}

/** Removes keys whose value is undefined, so the definition stays plain JSON without holes. */
export function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}

/**
 * Splits a command-line-like string on whitespace; double quotes and backquotes group words.
 * Double quotes are removed (with \" unescaped); backquoted text is kept as written (evaluated at run time).
 */
export function splitWords(s: string): string[] {
  const words: string[] = [];
  const re = /(?:[^\s"`]|"(?:\\.|[^"\\])*"?|`[^`]*`?)+/g;
  for (const m of s.matchAll(re)) words.push(m[0]);
  return words;
}

/** Removes one level of double quotes from a word (`"a b"` -> `a b`), unescaping `\"` and `\\`. */
export function unquote(word: string): string {
  if (word.length >= 2 && word.startsWith('"') && word.endsWith('"')) {
    return word.slice(1, -1).replace(/\\(["\\])/g, '$1');
  }
  return word;
}
