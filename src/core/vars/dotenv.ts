/**
 * dotenv files (SPEC 2.2 `dotenv`): KEY=VALUE lines. Parsing is pure; reading the files is the caller's job.
 * Values are literal: `${VAR}` inside a dotenv value is not expanded (SPEC does not ask for it, and a literal
 * value cannot change with the order files are loaded in).
 */
import type { EnvEntry } from '../spec/types.js';

export interface DotenvResult {
  entries: EnvEntry[];
  /** `line N: ...`, one per rejected line; the other lines still load. */
  errors: string[];
}

const ASSIGNMENT = /^(?:export\s+)?([^=\s]+)\s*=\s*(.*)$/s;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/** Index of the closing quote in `s` from `start`, skipping backslash escapes for double quotes; -1 if none. */
function closingQuote(s: string, start: number, quote: string): number {
  for (let i = start; i < s.length; i++) {
    if (quote === '"' && s[i] === '\\') i++;
    else if (s[i] === quote) return i;
  }
  return -1;
}

function unescapeDouble(body: string): string {
  return body.replace(/\\(.)/gs, (whole, c: string) => ESCAPES[c] ?? whole);
}

/** Unquoted values end at an inline comment: `#` preceded by whitespace. */
function unquoted(rest: string): string {
  const m = /\s#/.exec(rest);
  return (m ? rest.slice(0, m.index) : rest).trim();
}

interface QuotedValue {
  value?: string;
  error?: string;
  /** Lines consumed after the first one (multi-line values). */
  extraLines: number;
}

/** A quoted value that may continue over the following lines. */
function quoted(rest: string, lines: string[], next: number): QuotedValue {
  const quote = rest.charAt(0);
  let text = rest;
  let extra = 0;
  let close = closingQuote(text, 1, quote);
  while (close === -1 && next + extra < lines.length) {
    text += `\n${lines[next + extra] ?? ''}`;
    extra++;
    close = closingQuote(text, 1, quote);
  }
  if (close === -1) return { error: `unterminated ${quote === '"' ? 'double' : 'single'}-quoted value`, extraLines: 0 };
  const after = text.slice(close + 1).trim();
  if (after !== '' && !after.startsWith('#')) return { error: `unexpected text after quoted value: ${after}`, extraLines: extra };
  const body = text.slice(1, close);
  return { value: quote === '"' ? unescapeDouble(body) : body, extraLines: extra };
}

/** Parses one dotenv file. Later entries for the same key win when the caller applies them in order. */
export function parseDotenv(text: string): DotenvResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const entries: EnvEntry[] = [];
  const errors: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    // Only the start is trimmed: trailing spaces may belong to a quoted value that continues on the next line.
    const line = (lines[i] as string).trimStart();
    if (line === '' || line.startsWith('#')) continue;
    const m = ASSIGNMENT.exec(line);
    const name = m?.[1] ?? '';
    if (!m || !VAR_NAME.test(name)) {
      errors.push(`line ${i + 1}: ${m ? `invalid variable name "${name}"` : 'expected KEY=VALUE'}`);
      continue;
    }
    const rest = m[2] ?? '';
    const q = rest.startsWith('"') || rest.startsWith("'") ? quoted(rest, lines, i + 1) : { value: unquoted(rest), extraLines: 0 };
    if (q.value === undefined) errors.push(`line ${i + 1}: ${q.error ?? 'invalid value'}`);
    else entries.push({ name, value: q.value });
    i += q.extraLines;
  }
  return { entries, errors };
}

/** Files in load order without repeats, keeping the first occurrence (the loader already put `.env` first). */
export function dotenvOrder(files: string[]): string[] {
  return [...new Set(files)];
}
