/**
 * Rows to text, the same for both database types: JSON lines (one object per row, columns in their
 * order), a JSON array (one row per line, so it streams), or CSV (RFC 4180 quoting, `\n` line ends,
 * a header row unless `headers: false`). Values: numbers, booleans and null as JSON has them; an
 * integer beyond 2^53 and a NaN or infinity as a string (JSON numbers cannot hold them exactly);
 * bytes as base64; dates as ISO 8601 text; arrays and JSON values as JSON (in CSV, their JSON text).
 */
import type { OutputFormat } from '../../../core/spec/step-configs/sql.js';

export interface FormatOptions {
  format: OutputFormat;
  headers: boolean;
  /** How CSV writes NULL (JSON always writes null). */
  nullString: string;
}

/** The rows of one statement: begin with its columns, each row's values in column order, then end. */
export interface ResultWriter {
  begin(columns: string[]): void;
  row(values: readonly unknown[]): void;
  end(): void;
}

/** A value as JSON has it (see the file comment). */
export function jsonValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (Array.isArray(v)) return v.map(jsonValue);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonValue(x)]));
  return String(v);
}

/** Column names as object keys: a repeated name gets `_2`, `_3`... (JSON objects cannot repeat a key). */
export function uniqueNames(columns: string[]): string[] {
  const seen = new Set<string>();
  return columns.map((c) => {
    let name = c;
    for (let n = 2; seen.has(name); n++) name = `${c}_${n}`;
    seen.add(name);
    return name;
  });
}

/** A row as one JSON object, built by hand so the keys keep the columns' order (even names like "1"). */
function jsonObject(keys: string[], values: readonly unknown[]): string {
  return `{${keys.map((k, i) => `${JSON.stringify(k)}:${JSON.stringify(jsonValue(values[i]))}`).join(',')}}`;
}

/** One CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled). */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvCell(v: unknown, nullString: string): string {
  if (v === null || v === undefined) return csvField(nullString);
  const j = jsonValue(v);
  const text = typeof j === 'string' ? j : typeof j === 'number' || typeof j === 'boolean' ? String(j) : JSON.stringify(j);
  // An empty string must not read as NULL when NULL is written as nothing (as COPY ... CSV does).
  return text === '' && nullString === '' ? '""' : csvField(text);
}

export function resultWriter(o: FormatOptions, write: (text: string) => void): ResultWriter {
  let keys: string[] = [];
  let rows = 0;
  switch (o.format) {
    case 'jsonl': return {
      begin: (columns) => { keys = uniqueNames(columns); },
      row: (values) => write(`${jsonObject(keys, values)}\n`),
      end: () => undefined,
    };
    case 'json': return {
      begin: (columns) => { keys = uniqueNames(columns); rows = 0; write('['); },
      row: (values) => write(`${rows++ === 0 ? '\n' : ',\n'}${jsonObject(keys, values)}`),
      end: () => write(rows === 0 ? ']\n' : '\n]\n'),
    };
    case 'csv': return {
      begin: (columns) => { if (o.headers) write(`${columns.map(csvField).join(',')}\n`); },
      row: (values) => write(`${values.map((v) => csvCell(v, o.nullString)).join(',')}\n`),
      end: () => undefined,
    };
  }
}
