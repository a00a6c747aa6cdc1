/**
 * Redis replies as the step's output (docs/steps/redis.md). A reply is a bulk or status string, an
 * integer, nil, a list of replies, a map (HGETALL, CONFIG GET: the flat name/value list paired up, in
 * the server's order) or, inside a pipeline's results, the error of one command.
 *
 *   json  (default) the reply as indented JSON: strings quoted, integers as numbers, nil as null,
 *         lists as arrays, maps as objects, an error as {"error": "..."}.
 *   jsonl one compact JSON value per line: each element of a list, each {"name": value} of a map.
 *   raw   plain text: a string as it is, an integer's digits, nil as nullValue; each element of a
 *         list on its own line (nested lists too), a map as "name: value" lines.
 *   csv   RFC 4180 rows: a list is one row (a cell per element), a map is a row per name,value pair,
 *         anything else one cell; nil is nullValue, a nested list or map is compact JSON in its cell.
 */
import type { OutputFormat } from './plan.js';

export class MapReply {
  constructor(readonly pairs: ReadonlyArray<readonly [string, Reply]>) {}
}

export class ErrorReply {
  constructor(readonly message: string) {}
}

export type Reply = string | number | null | Reply[] | MapReply | ErrorReply;

/** A reply as ioredis gives it (RESP2: strings, numbers, null, arrays, Errors) in the model above. */
export function toReply(raw: unknown, pairs = false): Reply {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'string' || typeof raw === 'number') return raw;
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  if (raw instanceof Error) return new ErrorReply(raw.message);
  if (Array.isArray(raw)) {
    if (!pairs) return raw.map((x) => toReply(x));
    const out: Array<[string, Reply]> = [];
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), toReply(raw[i + 1])]);
    return new MapReply(out);
  }
  return String(raw);
}

const isContainer = (r: Reply): r is Reply[] | MapReply | ErrorReply => Array.isArray(r) || r instanceof MapReply || r instanceof ErrorReply;

function entries(r: MapReply | ErrorReply): ReadonlyArray<readonly [string, Reply]> {
  return r instanceof MapReply ? r.pairs : [['error', r.message]];
}

/**
 * JSON text of a reply: the layout of JSON.stringify(value, null, indent), written by hand so a map
 * keeps the server's field order (a JS object would move integer-like names to the front).
 */
export function toJson(r: Reply, indent = 0, depth = 0): string {
  if (!isContainer(r)) return JSON.stringify(r);
  const items = Array.isArray(r)
    ? r.map((x) => toJson(x, indent, depth + 1))
    : entries(r).map(([k, v]) => `${JSON.stringify(k)}:${indent > 0 ? ' ' : ''}${toJson(v, indent, depth + 1)}`);
  const [open, close] = Array.isArray(r) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  if (indent === 0) return open + items.join(',') + close;
  const pad = ' '.repeat(indent * (depth + 1));
  return `${open}\n${pad}${items.join(`,\n${pad}`)}\n${' '.repeat(indent * depth)}${close}`;
}

function jsonLines(r: Reply): string[] {
  if (Array.isArray(r)) return r.map((x) => toJson(x));
  if (r instanceof MapReply) return r.pairs.map(([k, v]) => toJson(new MapReply([[k, v]])));
  return [toJson(r)];
}

function rawLines(r: Reply, nullValue: string): string[] {
  if (r === null) return [nullValue];
  if (typeof r === 'string' || typeof r === 'number') return [String(r)];
  if (Array.isArray(r)) return r.flatMap((x) => rawLines(x, nullValue));
  if (r instanceof ErrorReply) return [`error: ${r.message}`];
  return r.pairs.map(([k, v]) => `${k}: ${isContainer(v) ? toJson(v) : v === null ? nullValue : String(v)}`);
}

function cell(r: Reply, nullValue: string): string {
  const text = r === null ? nullValue : isContainer(r) ? toJson(r) : String(r);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvRows(r: Reply, nullValue: string): string[] {
  if (Array.isArray(r)) return r.length === 0 ? [] : [r.map((x) => cell(x, nullValue)).join(',')];
  if (r instanceof MapReply || r instanceof ErrorReply) return entries(r).map(([k, v]) => `${cell(k, nullValue)},${cell(v, nullValue)}`);
  return [cell(r, nullValue)];
}

/** The output text of a reply in a format: lines ending in a newline ('' for no lines). */
export function render(r: Reply, format: OutputFormat, nullValue: string): string {
  const lines = format === 'json' ? [toJson(r, 2)]
    : format === 'jsonl' ? jsonLines(r)
      : format === 'raw' ? rawLines(r, nullValue)
        : csvRows(r, nullValue);
  return lines.map((l) => `${l}\n`).join('');
}
