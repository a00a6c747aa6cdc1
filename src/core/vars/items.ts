/**
 * Items of a `parallel` step given as one `${VAR}` string (SPEC 2.3 `parallel`; dagu-behaviour 8 "Items from
 * variables"). The separator is auto-detected the way Dagu does it:
 *  1. valid JSON starting with `[` -> its elements; starting with `{` -> that single object;
 *  2. a line break -> one item per non-blank line;
 *  3. at least two `"` and the text starts or ends with one, or has `" ` / ` "` -> quoted words (`"a b" c`);
 *  4. the most frequent of tab, pipe, semicolon, comma (ties: tab, then pipe, then semicolon, then comma);
 *  5. otherwise whitespace.
 * Items are trimmed and blank ones dropped (except explicitly quoted empty strings and JSON elements).
 */

export type ParallelItem = string | Record<string, unknown>;

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON elements: objects stay objects, strings stay strings, anything else becomes its JSON text. */
function fromJsonElement(v: unknown): ParallelItem {
  if (typeof v === 'string' || isObject(v)) return v;
  return JSON.stringify(v);
}

function splitTrim(s: string, sep: RegExp | string): string[] {
  return s.split(sep).map((p) => p.trim()).filter((p) => p !== '');
}

const count = (s: string, c: string): number => s.split(c).length - 1;

function looksQuoted(s: string): boolean {
  return count(s, '"') >= 2 && (s.startsWith('"') || s.endsWith('"') || s.includes('" ') || s.includes(' "'));
}

/** `"item one" two "three"`: quoted sections are items as written, unquoted words split at whitespace. */
function parseQuoted(s: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)("?)|[^\s"]+/g;
  for (const m of s.matchAll(re)) {
    if (m[1] === undefined) out.push(m[0]);
    else if (m[2] === '"' || m[1] !== '') out.push(m[1]);
  }
  return out;
}

function mostFrequentSeparator(s: string): string | undefined {
  let best: string | undefined;
  let max = 0;
  for (const sep of ['\t', '|', ';', ',']) {
    const n = count(s, sep);
    if (n > max) [best, max] = [sep, n];
  }
  return best;
}

export function parseParallelItems(value: string): ParallelItem[] {
  const s = value.trim();
  if (s === '') return [];
  const json = s.startsWith('[') || s.startsWith('{') ? parseJson(s) : undefined;
  if (Array.isArray(json)) return json.map(fromJsonElement);
  if (isObject(json)) return [json];
  if (/[\r\n]/.test(s)) return splitTrim(s, /[\r\n]+/);
  if (looksQuoted(s)) return parseQuoted(s);
  const sep = mostFrequentSeparator(s);
  return sep === undefined ? splitTrim(s, /\s+/) : splitTrim(s, sep);
}

/** How an item is passed on (params of the child run, `${ITEM}`): objects as compact JSON. */
export function itemToString(item: ParallelItem | number | boolean): string {
  return typeof item === 'string' ? item : JSON.stringify(item);
}
