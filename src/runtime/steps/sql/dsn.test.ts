import { parseDsn, parsePairs } from './pg-dsn.js';
import { isoTimestamp, PG_TYPES } from './pg-values.js';
import { sqliteLocation } from './sqlite.js';

describe('postgres dsn', () => {
  test('a URL: passed as written; the password (decoded and encoded) to mask; a label without it', () => {
    const t = parseDsn('postgres://ada:p%40ss w@db.example:6543/app?sslmode=disable');
    expect(t.connectionString).toBe('postgres://ada:p%40ss w@db.example:6543/app?sslmode=disable');
    expect(t.secrets).toEqual(expect.arrayContaining(['p@ss w', 'p%40ss w', 'p%40ss%20w']));
    expect(t.label).toBe('db.example:6543/app');
  });

  test('key=value pairs become a URL; quoted values; a socket directory as host', () => {
    expect(parsePairs("host=h port=5 password='it\\'s x' dbname = d")).toEqual(new Map([['host', 'h'], ['port', '5'], ['password', "it's x"], ['dbname', 'd']]));
    const t = parseDsn("host=127.0.0.1 port=5433 user=svc password='s3 cr=t' dbname=app sslmode=disable");
    expect(t.connectionString).toBe('postgres://svc:s3%20cr%3Dt@127.0.0.1:5433/app?sslmode=disable');
    expect(t.secrets).toContain('s3 cr=t');
    expect(parseDsn('host=/run/pg user=x dbname=y').connectionString).toBe('postgres://x@localhost/y?host=%2Frun%2Fpg');
    expect(parseDsn('host=/run/pg user=x dbname=y').label).toBe('/run/pg:5432/y');
  });

  test('anything else is an error that does not repeat the DSN', () => {
    expect(() => parseDsn('mysql://u:secret@h/d')).toThrow(/must be a postgres:\/\/ URL or key=value pairs/);
    try {
      parseDsn('not a dsn secret');
    } catch (e) {
      expect((e as Error).message).not.toContain('secret');
    }
  });
});

describe('postgres values', () => {
  const parse = (oid: number, text: string): unknown => PG_TYPES.getTypeParser(oid, 'text')(text);

  test('numbers, booleans, bigint, numeric, json, bytea, arrays, other text', () => {
    expect(parse(23, '42')).toBe(42);
    expect(parse(20, '42')).toBe(42);
    expect(parse(20, '9223372036854775807')).toBe('9223372036854775807');
    expect(parse(1700, '1.10')).toBe('1.10');
    expect(parse(701, 'NaN')).toBeNaN();
    expect(parse(16, 't')).toBe(true);
    expect(parse(3802, '{"a": [1]}')).toEqual({ a: [1] });
    expect(parse(17, '\\x01ff')).toEqual(Buffer.from([1, 255]));
    expect(parse(1007, '{1,2,NULL}')).toEqual([1, 2, null]);
    expect(parse(1186, '01:02:03')).toBe('01:02:03');
    expect(parse(2950, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  });

  test('timestamps as ISO 8601 with their precision and offset', () => {
    expect(isoTimestamp('2024-01-02 03:04:05.123456+00')).toBe('2024-01-02T03:04:05.123456Z');
    expect(isoTimestamp('2024-01-02 03:04:05+05:30')).toBe('2024-01-02T03:04:05+05:30');
    expect(isoTimestamp('2024-01-02 03:04:05-08')).toBe('2024-01-02T03:04:05-08:00');
    expect(isoTimestamp('2024-01-02 03:04:05')).toBe('2024-01-02T03:04:05');
    expect(isoTimestamp('infinity')).toBe('infinity');
    expect(parse(1082, '2024-01-02')).toBe('2024-01-02');
  });
});

describe('sqlite dsn', () => {
  test('paths relative to the working directory; :memory:; file: URIs made absolute, their query kept', () => {
    expect(sqliteLocation('data/app.db', '/w')).toBe('/w/data/app.db');
    expect(sqliteLocation('/abs/app.db', '/w')).toBe('/abs/app.db');
    expect(sqliteLocation(':memory:', '/w')).toBe(':memory:');
    expect(sqliteLocation('file:./app.db?mode=ro', '/w')).toBe('file:///w/app.db?mode=ro');
    expect(sqliteLocation('file:///abs/a%20b.db', '/w')).toBe('file:///abs/a%20b.db');
    expect(sqliteLocation('file::memory:?cache=shared', '/w')).toBe('file::memory:?cache=shared');
  });
});
