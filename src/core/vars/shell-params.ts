/**
 * The parameter expansions of the POSIX shell (and bash's substrings and replacements) inside `${...}`,
 * for the values svc evaluates itself before any shell runs (env values, params), as the reference
 * evaluates them: `${V:-word}`, `${V-word}`, `${V:=word}`, `${V:+word}`, `${V+word}`, `${#V}`,
 * `${V:offset}`, `${V:offset:length}`, `${V#pat}`, `${V##pat}`, `${V%pat}`, `${V%%pat}`, `${V/pat/rep}`,
 * `${V//pat/rep}`. Patterns are shell globs (`*`, `?`, `[...]`).
 */
import type { Lookup } from './expand.js';

const NAME = '[A-Za-z_][A-Za-z0-9_]*|[0-9]+';
const FORM = new RegExp(`^(?:#(${NAME})|(${NAME})(:?[-=+]|:|##?|%%?|//?)(.*))$`, 's');

/**
 * The value of a `${...}` body with an operator, or undefined when the body is not such an expansion.
 * `word` texts are expanded by `expand` first (a word may itself name variables).
 */
export function shellParam(body: string, lookup: Lookup, expand: (word: string) => string): string | undefined {
  const m = FORM.exec(body);
  if (!m) return undefined;
  if (m[1] !== undefined) return String([...(lookup(m[1]) ?? '')].length);
  const [name, op, rest] = [m[2]!, m[3]!, m[4]!];
  const value = lookup(name);
  switch (op) {
    case ':-': case ':=': return value ? value : expand(rest);
    case '-': case '=': return value !== undefined ? value : expand(rest);
    case ':+': return value ? expand(rest) : '';
    case '+': return value !== undefined ? expand(rest) : '';
    case ':': return substring(value ?? '', expand(rest));
    case '#': case '##': return trimStart(value ?? '', expand(rest), op === '##');
    case '%': case '%%': return trimEnd(value ?? '', expand(rest), op === '%%');
    default: return replace(value ?? '', rest, op === '//', expand);
  }
}

/** `offset[:length]`, bash rules: a negative offset counts from the end (written `: -3` or `:(-3)`), a negative length too. */
export function substring(value: string, spec: string): string | undefined {
  const m = /^\s*\(?\s*(-?\d+)\s*\)?\s*(?::\s*\(?\s*(-?\d+)\s*\)?\s*)?$/.exec(spec);
  if (!m) return undefined;
  const chars = [...value];
  let start = Number(m[1]);
  if (start < 0) start = Math.max(0, chars.length + start);
  if (m[2] === undefined) return chars.slice(start).join('');
  const len = Number(m[2]);
  const end = len < 0 ? chars.length + len : start + len;
  return end <= start ? '' : chars.slice(start, end).join('');
}

/** A shell glob as a regular expression source (no anchors). */
function globSource(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) out += escape(pattern[++i]!);
    else if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) { out += '\\['; continue; }
      const inner = pattern.slice(i + 1, close).replace(/^!/, '^').replace(/\\/g, '\\\\');
      out += `[${inner}]`;
      i = close;
    } else out += escape(c);
  }
  return out;
}

const escape = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function trimStart(value: string, pattern: string, longest: boolean): string {
  const whole = new RegExp(`^(?:${globSource(pattern)})$`);
  const lengths = [...Array(value.length + 1).keys()];
  for (const n of longest ? lengths.reverse() : lengths) if (whole.test(value.slice(0, n))) return value.slice(n);
  return value;
}

function trimEnd(value: string, pattern: string, longest: boolean): string {
  const whole = new RegExp(`^(?:${globSource(pattern)})$`);
  const starts = [...Array(value.length + 1).keys()];
  for (const s of longest ? starts : starts.reverse()) if (whole.test(value.slice(s))) return value.slice(0, s);
  return value;
}

/** `pat/rep` (the first `/` not escaped splits them); `all`: every match. Longest match, as the shell. */
function replace(value: string, spec: string, all: boolean, expand: (word: string) => string): string {
  const slash = spec.search(/(?<!\\)\//);
  const [pattern, rep] = slash < 0 ? [spec, ''] : [spec.slice(0, slash), spec.slice(slash + 1)];
  if (pattern === '') return value;
  const re = new RegExp(globSource(expand(pattern)), all ? 'g' : '');
  const text = expand(rep);
  return value.replace(re, () => text);
}
