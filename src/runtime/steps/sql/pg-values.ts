/**
 * How postgres values arrive from the driver (text protocol), chosen for output rather than for
 * computing: integers, floats and booleans as such; bigint as a number when it fits a double exactly,
 * else as text; numeric always as text (it keeps its digits); json/jsonb parsed (nested in JSON
 * output); bytea as base64; date/time types as ISO 8601 text with the server's precision and offset
 * (not through Date, which would drop microseconds and read a timestamp without time zone as local
 * time); arrays of these as arrays (pg's parsers); everything else (uuid, interval, inet, enums...)
 * as the server's text (arrays of numeric and of dates too: `{...}`).
 */
import pg from 'pg';

type Parser = (text: string) => unknown;

const asText: Parser = (v) => v;

const bigint: Parser = (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
};

/** `2024-01-02 03:04:05.123456+05:30` -> `2024-01-02T03:04:05.123456+05:30` (`+00` -> `Z`); infinity, BC as they are. */
export const isoTimestamp: Parser = (v) => {
  const m = /^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?$/.exec(v);
  if (!m) return v;
  const [, date, time, sign, hh, mm, ss] = m;
  if (!sign) return `${date}T${time}`;
  if (hh === '00' && (mm ?? '00') === '00' && (ss ?? '00') === '00') return `${date}T${time}Z`;
  return `${date}T${time}${sign}${hh}:${mm ?? '00'}${ss ? `:${ss}` : ''}`;
};

const bytea: Parser = (v) => (v.startsWith('\\x') ? Buffer.from(v.slice(2), 'hex') : pg.types.getTypeParser(17)(v));

const PARSERS: Record<number, Parser> = {
  16: (v) => v === 't', // bool
  17: bytea,
  20: bigint, // int8
  21: Number, 23: Number, 26: Number, // int2, int4, oid
  700: Number, 701: Number, // float4, float8 ('NaN', 'Infinity' included)
  1700: asText, // numeric
  114: (v) => JSON.parse(v), 3802: (v) => JSON.parse(v), // json, jsonb
  1082: asText, // date
  1114: isoTimestamp, 1184: isoTimestamp, // timestamp, timestamptz
};

/** Arrays whose elements pg's own parsers read exactly (booleans, integers, floats, text, JSON, uuid, bytea). */
const ARRAYS = new Set([1000, 1005, 1007, 1016, 1021, 1022, 1009, 1015, 1014, 199, 3807, 2951, 1001]);

export const PG_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary');
    return PARSERS[oid] ?? (ARRAYS.has(oid) ? pg.types.getTypeParser(oid, 'text') : asText);
  }) as typeof pg.types.getTypeParser,
};
