import { loadDagText } from '../load.js';
import { effectiveConfig } from '../step-config.js';
import { checkPostgres, checkSqlite } from './sql.js';

/** The problems of the DAG's first step, as `field: message`. */
function problems(step: string): string[] {
  const loaded = loadDagText(`steps:\n  - name: s\n${step.replace(/^/gm, '    ')}\n`, { fileName: 'd' });
  if (!loaded.dag) throw new Error(loaded.errors.join('; '));
  const s = loaded.dag.steps[0]!;
  const check = s.type === 'postgres' ? checkPostgres : checkSqlite;
  return check(effectiveConfig(loaded.dag, s), s).map((p) => `${p.field}: ${p.message}`);
}

describe('postgres and sqlite step config', () => {
  test.each([
    ['a command', 'type: postgres\nconfig: { dsn: "postgres://h/db" }\ncommand: SELECT 1'],
    ['a script and every field', 'type: postgres\nconfig:\n  dsn: host=h dbname=d\n  params: { a: 1 }\n  timeout: 5\n  transaction: true\n  isolationLevel: serializable\n  advisoryLock: nightly\n  outputFormat: csv\n  headers: false\n  nullString: NULL\n  maxRows: 10\nscript: |\n  SELECT 1;\n  SELECT 2;'],
    ['a SQL file and positional params', 'type: sqlite\nconfig: { dsn: app.db, file: q.sql, params: [1, two], busyTimeout: 2 }'],
    ['variables count as given', 'type: postgres\nconfig: { dsn: "${DB}", outputFormat: "${FMT}", maxRows: "${N}", transaction: "${TX}", isolationLevel: "${L}" }\ncommand: SELECT 1'],
    ['step params', 'type: sqlite\nconfig: { dsn: ":memory:" }\nparams: a=1 b=2\ncommand: SELECT :a'],
  ])('%s is valid', (_name, step) => {
    expect(problems(step)).toEqual([]);
  });

  test('a DSN and the SQL are required', () => {
    expect(problems('type: postgres\nconfig: {}')).toEqual([
      'config.dsn: is required for postgres steps (a postgres:// URL or a key=value connection string)',
      'command: is required for postgres steps (the SQL; or script, or config.file)',
    ]);
    expect(problems('type: sqlite\nconfig: { dsn: "" }\ncommand: SELECT 1')).toEqual([
      'config.dsn: is required for sqlite steps (a file path, :memory: or a file: URI)',
    ]);
  });

  test('the SQL comes from one place; params from one place', () => {
    expect(problems('type: sqlite\nconfig: { dsn: a.db, file: q.sql, params: [1] }\ncommand: SELECT 1\nparams: "1"')).toEqual([
      'config.file: cannot be combined with command (the SQL comes from one of command, script, config.file)',
      'params: cannot be combined with config.params: give the parameters in one of them',
    ]);
  });

  test('bad values and unknown fields', () => {
    expect(problems('type: postgres\nconfig: { dsn: 5, outputFormat: xml, maxRows: -1, timeout: soon, headers: yes, params: x, isolationLevel: chaos, streaming: true }\ncommand: SELECT 1')).toEqual([
      'config.dsn: must be a string (a postgres:// URL or a key=value connection string)',
      'config.outputFormat: must be jsonl, json, csv',
      'config.timeout: must be a number, 0 or more',
      'config.maxRows: must be a number, 0 or more',
      'config.headers: must be true or false',
      'config.isolationLevel: must be one of default, read_uncommitted, read_committed, repeatable_read, serializable',
      'config.streaming: is not a postgres step field (dsn, params, file, timeout, transaction, outputFormat, headers, nullString, maxRows, isolationLevel, advisoryLock)',
      'config.params: must be a map (named :name parameters) or a list (positional parameters)',
    ]);
  });

  test('isolationLevel needs a transaction; postgres-only fields are unknown to sqlite', () => {
    expect(problems('type: postgres\nconfig: { dsn: x, isolationLevel: serializable }\ncommand: SELECT 1')).toEqual([
      'config.isolationLevel: applies to a transaction: set transaction: true',
    ]);
    expect(problems('type: sqlite\nconfig: { dsn: x, isolationLevel: default, transaction: true }\ncommand: SELECT 1')).toEqual([
      'config.isolationLevel: is not a sqlite step field (dsn, params, file, timeout, transaction, outputFormat, headers, nullString, maxRows, busyTimeout)',
    ]);
  });
});
