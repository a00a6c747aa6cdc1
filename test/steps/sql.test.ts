/**
 * The postgres and sqlite step types through the real embedded engine: postgres against a real
 * PostgreSQL 15 started by the test (test/helpers/postgres.ts: initdb in a temp dir, 127.0.0.1, a free
 * port, SCRAM password auth), sqlite on files in the run's working directory and in memory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { runPostgres } from '../../src/runtime/steps/sql/postgres.js';
import { runSqlite } from '../../src/runtime/steps/sql/sqlite.js';
import { describePostgres, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { runSteps, type StepsOptions } from '../helpers/steps.js';

const runners = { postgres: runPostgres, sqlite: runSqlite };
const run = (yaml: string, o: StepsOptions = {}) => runSteps(yaml, { ...o, runners });
const example = (name: string): string => readFileSync(fileURLToPath(new URL(`../../examples/steps/${name}`, import.meta.url)), 'utf8');
const lines = (text: string): unknown[] => text.trim().split('\n').map((l) => JSON.parse(l) as unknown);

describePostgres('postgres steps', () => {
  let server: PostgresServer;
  let db: pg.Client;
  let dsn = '';
  beforeAll(async () => {
    server = await startPostgres();
    db = await server.client();
    dsn = server.url;
    await db.query(`CREATE TABLE people (id int PRIMARY KEY, name text, born date, score numeric, tags text[], extra jsonb, photo bytea, seen timestamptz, big bigint, ok boolean)`);
    await db.query(`INSERT INTO people VALUES
      (1, 'ada', '1815-12-10', 12.50, '{a,b}', '{"k": [1, 2]}', '\\x0102', '2024-01-02 03:04:05.123456+00', 9007199254740993, true),
      (2, 'alan, "al"', NULL, NULL, NULL, NULL, NULL, NULL, 2, NULL)`);
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await server?.stop();
  });

  test('a select as JSON lines: typed values in column order; captured by output: for later steps', async () => {
    const r = await run(`
steps:
  - name: q
    type: postgres
    config: { dsn: "${dsn}" }
    command: SELECT id, name, born, score, tags, extra, photo, seen, big, ok FROM people ORDER BY id
    output: ROWS
  - name: one
    type: postgres
    config: { dsn: "${dsn}" }
    command: SELECT count(*) AS n, min(name) AS first FROM people
    output: ONE
  - name: use
    command: echo "\${ONE.n} people, first \${ONE.first}"
    output: SAID
`);
    expect(r.status).toBe('succeeded');
    const out = await r.log('q');
    expect(out.split('\n')[0]).toBe('{"id":1,"name":"ada","born":"1815-12-10","score":"12.50","tags":["a","b"],"extra":{"k":[1,2]},"photo":"AQI=","seen":"2024-01-02T03:04:05.123456Z","big":"9007199254740993","ok":true}');
    expect(lines(out)[1]).toEqual({ id: 2, name: 'alan, "al"', born: null, score: null, tags: null, extra: null, photo: null, seen: null, big: 2, ok: null });
    expect(await r.log('q', 'stderr')).toMatch(/^statement 1\/1: SELECT 2 \(\d+ ms\)\n$/);
    expect(await r.outputs()).toMatchObject({ said: '2 people, first ada' });
  });

  test('CSV with a header row and RFC 4180 quoting, without headers, nullString; a JSON array; maxRows', async () => {
    const r = await run(`
type: graph
steps:
  - name: csv
    type: postgres
    config: { dsn: "${dsn}", outputFormat: csv }
    command: SELECT id, name, score FROM people ORDER BY id
  - name: bare
    type: postgres
    config: { dsn: "${dsn}", outputFormat: csv, headers: false, nullString: "NULL" }
    command: SELECT id, score FROM people ORDER BY id
  - name: json
    type: postgres
    config: { dsn: "${dsn}", outputFormat: json }
    command: SELECT id, ok FROM people ORDER BY id
  - name: capped
    type: postgres
    config: { dsn: "${dsn}", maxRows: 3 }
    command: SELECT g FROM generate_series(1, 1000000) g
  - name: capped-write
    type: postgres
    config: { dsn: "${dsn}", maxRows: 2, transaction: true }
    script: |
      CREATE TEMP TABLE w (g int);
      INSERT INTO w SELECT generate_series(1, 5);
      SELECT count(*) AS n FROM w;
      SELECT g FROM w WHERE g > 10;
`);
    expect(r.status).toBe('succeeded');
    expect(await r.log('csv')).toBe('id,name,score\n1,ada,12.50\n2,"alan, ""al""",\n');
    expect(await r.log('bare')).toBe('1,12.50\n2,NULL\n');
    expect(JSON.parse(await r.log('json'))).toEqual([{ id: 1, ok: true }, { id: 2, ok: null }]);
    expect(await r.log('capped')).toBe('{"g":1}\n{"g":2}\n{"g":3}\n');
    expect(await r.log('capped', 'stderr')).toContain('3 rows (maxRows 3; more were left unread)');
    expect(await r.log('capped-write')).toBe('{"n":5}\n');
    expect(await r.log('capped-write', 'stderr')).toMatch(/statement 2\/4: INSERT 5 \(/);
  });

  test('parameters: named and positional, from config.params and step params, values from earlier outputs, never interpolated', async () => {
    const r = await run(`
type: graph
params:
  - WHO: ada
steps:
  - name: pick
    command: echo 2
    output: ID
  - name: named
    depends: pick
    type: postgres
    config:
      dsn: "${dsn}"
      params: { id: "\${ID}", who: "\${WHO}" }
    command: SELECT name FROM people WHERE id = :id OR name = :who ORDER BY id
  - name: positional
    depends: pick
    type: postgres
    config:
      dsn: "${dsn}"
      params: ["\${ID}", 10]
    command: SELECT $1::int + $2 AS sum
  - name: step-params
    depends: pick
    type: postgres
    config: { dsn: "${dsn}" }
    params: id=\${ID} evil="x'); DROP TABLE people; --"
    command: SELECT name, :evil AS evil FROM people WHERE id = :id
  - name: step-positional
    depends: pick
    type: postgres
    config: { dsn: "${dsn}" }
    params: \${ID} \${WHO}
    command: SELECT $2 || '-' || $1 AS s
`);
    expect(r.status).toBe('succeeded');
    expect(lines(await r.log('named'))).toEqual([{ name: 'ada' }, { name: 'alan, "al"' }]);
    expect(lines(await r.log('positional'))).toEqual([{ sum: 12 }]);
    expect(lines(await r.log('step-params'))).toEqual([{ name: 'alan, "al"', evil: "x'); DROP TABLE people; --" }]);
    expect(lines(await r.log('step-positional'))).toEqual([{ s: 'ada-2' }]);
    expect((await db.query('SELECT count(*)::int AS n FROM people')).rows[0]).toEqual({ n: 2 });
  });

  test('a script runs its statements in order; the rows of each statement that returns rows are written', async () => {
    const r = await run(`
steps:
  - name: s
    type: postgres
    config: { dsn: "${dsn}", advisoryLock: script-test }
    script: |
      CREATE TABLE script_t (a int, b text);
      DO $d$ BEGIN RAISE NOTICE 'hello %', 1; END $d$;
      -- a comment; with a semicolon
      INSERT INTO script_t VALUES (1, 'x;y'), (2, $q$it's$q$) RETURNING a;
      CREATE FUNCTION script_f() RETURNS int AS $fn$ BEGIN RETURN 7; END; $fn$ LANGUAGE plpgsql;
      SELECT b, script_f() AS f FROM script_t ORDER BY a;
`);
    expect(r.status).toBe('succeeded');
    expect(lines(await r.log('s'))).toEqual([{ a: 1 }, { a: 2 }, { b: 'x;y', f: 7 }, { b: "it's", f: 7 }]);
    expect(await r.log('s', 'stderr')).toMatch(/statement 1\/5: CREATE[^\n]*\nNOTICE: hello 1\nstatement 2\/5: DO[^\n]*\nstatement 3\/5: INSERT 2[^\n]*\nstatement 4\/5: CREATE[^\n]*\nstatement 5\/5: SELECT 2/);
  });

  test('transaction: true rolls the whole script back when a statement fails; the error says which and where', async () => {
    await db.query('CREATE TABLE tx_t (a int PRIMARY KEY)');
    const r = await run(`
steps:
  - name: tx
    type: postgres
    config: { dsn: "${dsn}", transaction: true, isolationLevel: serializable }
    script: |
      INSERT INTO tx_t VALUES (1);
      INSERT INTO tx_t VALUES (2);
      INSERT INTO tx_t
        VALUES (1);
`);
    expect(r.status).toBe('failed');
    expect(r.node('tx').error).toBe('postgres step: statement 3 failed: duplicate key value violates unique constraint "tx_t_pkey" (SQLSTATE 23505; detail: Key (a)=(1) already exists.)');
    expect(await r.log('tx', 'stderr')).toContain('transaction rolled back');
    expect((await db.query('SELECT count(*)::int AS n FROM tx_t')).rows[0]).toEqual({ n: 0 });
  });

  test('an SQL error names the position in the SQL as written', async () => {
    const r = await run(`
steps:
  - name: bad
    type: postgres
    config: { dsn: "${dsn}", params: { id: 1 } }
    script: |
      SELECT 1;
      SELECT name FROM people
        WHERE id = :id AND nope = 1;
`);
    expect(r.status).toBe('failed');
    expect(r.node('bad').error).toBe('postgres step: statement 2 failed at line 3, column 22: column "nope" does not exist (SQLSTATE 42703; hint: Perhaps you meant to reference the column "people.name".)');
  });

  test('connection refused, a bad password and a bad DSN are step errors; the password is masked everywhere', async () => {
    const wrong = 'Wr0ng-pa55-word';
    const r = await run(`
type: graph
steps:
  - name: refused
    type: postgres
    config: { dsn: "postgres://svc:${wrong}@127.0.0.1:1/x" }
    command: SELECT 1
  - name: password
    type: postgres
    config: { dsn: "host=127.0.0.1 port=${server.port} user=${server.user} password=${wrong} dbname=postgres sslmode=disable" }
    command: SELECT 1
  - name: garbage
    type: postgres
    config: { dsn: "mysql://root:${wrong}@h/d" }
    command: SELECT 1
  - name: echoes
    type: postgres
    config: { dsn: "${dsn}" }
    command: SELECT '${server.password}' AS pw
`);
    expect(r.node('refused').error).toMatch(/^postgres step: cannot connect to 127\.0\.0\.1:1\/x: .*ECONNREFUSED/);
    expect(r.node('password').error).toBe(`postgres step: cannot connect to 127.0.0.1:${server.port}/postgres: password authentication failed for user "${server.user}" (SQLSTATE 28P01)`);
    expect(r.node('garbage').error).toContain('config.dsn must be a postgres:// URL or key=value pairs');
    expect(await r.log('echoes')).toBe('{"pw":"*******"}\n');
    const everything = JSON.stringify(r.run.status) + (await Promise.all(['refused', 'password', 'garbage', 'echoes'].map((s) => r.log(s, 'stderr')))).join('');
    expect(everything).not.toContain(wrong);
    expect(everything).not.toContain(server.password);
  });

  test('a unix socket directory as host in a key=value DSN', async () => {
    const r = await run(`
steps:
  - name: sock
    type: postgres
    config: { dsn: "host=${server.socketDir} port=${server.port} user=${server.user} password='${server.password}' dbname=postgres" }
    command: SELECT current_user AS u
`);
    expect(r.status).toBe('succeeded');
    expect(lines(await r.log('sock'))).toEqual([{ u: server.user }]);
  });

  async function sleepers(): Promise<number> {
    const rows = await db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%' AND state = 'active'");
    return (rows.rows[0] as { n: number }).n;
  }

  async function noSleepers(): Promise<number> {
    for (let i = 0; i < 30 && (await sleepers()) > 0; i++) await new Promise((res) => setTimeout(res, 100));
    return sleepers();
  }

  test('config.timeout cancels a long statement promptly, on the server too', async () => {
    const t = Date.now();
    const r = await run(`
steps:
  - name: slow
    type: postgres
    config: { dsn: "${dsn}", timeout: 1 }
    command: SELECT pg_sleep(30)
`);
    expect(r.status).toBe('failed');
    expect(r.node('slow').error).toBe('postgres step: timed out after 1s (config.timeout)');
    expect(Date.now() - t).toBeLessThan(6_000);
    expect(await noSleepers()).toBe(0);
  });

  test('the step timeout (as a stop) ends the step at once and cancels the statement on the server', async () => {
    const t = Date.now();
    const r = await run(`
steps:
  - name: slow
    type: postgres
    config: { dsn: "${dsn}" }
    command: SELECT pg_sleep(30)
    timeoutSec: 1
`);
    expect(r.status).toBe('failed');
    expect(r.node('slow').error).toContain('timed out after 1s');
    expect(Date.now() - t).toBeLessThan(6_000);
    expect(await noSleepers()).toBe(0);
  });

  test('the example DAG runs against the server', async () => {
    const r = await run(example('postgres.yaml'), {
      params: `PG_PORT=${server.port} PG_USER=${server.user}`, env: { SVC_PG_PASSWORD: server.password },
    });
    expect({ status: r.status, error: r.run.status.run.nodes.map((n) => n.error).filter(Boolean) }).toEqual({ status: 'succeeded', error: [] });
    expect(await r.outputs()).toMatchObject({ reportCsv: 'item,qty\napples,3\npears,1\nplums,5' });
    expect(await r.log('show')).toBe('largest order plums; 3 orders, 9 items\n');
  });
});

describe('sqlite steps', () => {
  test('a file relative to the working directory: created by a script, written in a transaction, read as CSV and JSON', async () => {
    const r = await run(`
type: graph
steps:
  - name: mkdir
    command: mkdir -p data
  - name: create
    depends: mkdir
    type: sqlite
    config: { dsn: data/app.db }
    script: |
      CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, raw BLOB, big INTEGER);
      CREATE TRIGGER t_upper AFTER INSERT ON t BEGIN
        UPDATE t SET name = CASE WHEN NEW.name IS NULL THEN NULL ELSE upper(NEW.name) END WHERE id = NEW.id;
      END;
      INSERT INTO t VALUES (1, 'a,"b"', 1.5, x'0102', 9007199254740993), (2, NULL, NULL, NULL, 3);
  - name: csv
    depends: create
    type: sqlite
    config: { dsn: data/app.db, outputFormat: csv }
    command: SELECT id, name, score FROM t ORDER BY id
  - name: json
    depends: create
    type: sqlite
    config: { dsn: "file:data/app.db?mode=ro", outputFormat: json }
    command: SELECT id, raw, big FROM t ORDER BY id
`);
    expect(r.status).toBe('succeeded');
    expect(existsSync(join(r.dir, 'data/app.db'))).toBe(true);
    expect(await r.log('csv')).toBe('id,name,score\n1,"A,""B""",1.5\n2,,\n');
    expect(JSON.parse(await r.log('json'))).toEqual([{ id: 1, raw: 'AQI=', big: '9007199254740993' }, { id: 2, raw: null, big: 3 }]);
    expect(await r.log('create', 'stderr')).toContain('statement 3/3: 2 rows changed');
  });

  test(':memory:, named and positional parameters from step params and earlier outputs; output captured', async () => {
    const r = await run(`
type: graph
steps:
  - name: pick
    command: echo 41
    output: N
  - name: named
    depends: pick
    type: sqlite
    config: { dsn: ":memory:" }
    params: { n: "\${N}", who: "x'); drop table t; --", flag: true }
    command: SELECT :n + 1 AS answer, :who AS who, :flag AS flag, :n AS again
    output: ANSWER
  - name: positional
    depends: pick
    type: sqlite
    config: { dsn: ":memory:", params: ["\${N}", 1.5] }
    command: SELECT ? AS a, ?2 AS b, ?1 AS c
  - name: use
    depends: named
    command: echo "\${ANSWER.answer}"
    output: SAID
`);
    expect(r.status).toBe('succeeded');
    expect(lines(await r.log('named'))).toEqual([{ answer: 42, who: "x'); drop table t; --", flag: 1, again: '41' }]);
    expect(lines(await r.log('positional'))).toEqual([{ a: '41', b: 1.5, c: '41' }]);
    expect(await r.outputs()).toMatchObject({ said: '42' });
  });

  test('a failing statement rolls a transaction back; errors name the statement; a missing directory cannot be opened', async () => {
    const r = await run(`
type: graph
steps:
  - name: setup
    type: sqlite
    config: { dsn: t.db }
    command: CREATE TABLE u (a INTEGER PRIMARY KEY)
  - name: tx
    depends: setup
    type: sqlite
    config: { dsn: t.db, transaction: true }
    script: |
      INSERT INTO u VALUES (1);
      INSERT INTO u VALUES (1);
  - name: count
    depends: tx
    type: sqlite
    config: { dsn: t.db }
    command: SELECT count(*) AS n FROM u
    continueOn: { skipped: true }
  - name: nope
    type: sqlite
    config: { dsn: ":memory:" }
    command: SELECT * FROM nowhere
  - name: nodir
    type: sqlite
    config: { dsn: no/such/dir/x.db }
    command: SELECT 1
  - name: unbound
    type: sqlite
    config: { dsn: ":memory:", params: { a: 1 } }
    command: SELECT :a, :b
`);
    expect(r.node('tx').error).toBe('sqlite step: statement 2 (line 2) failed: UNIQUE constraint failed: u.a');
    expect(await r.log('tx', 'stderr')).toContain('transaction rolled back');
    expect(r.node('nope').error).toBe('sqlite step: the statement (line 1) failed: no such table: nowhere');
    expect(r.node('nodir').error).toMatch(/^sqlite step: cannot open \/.*\/no\/such\/dir\/x\.db: unable to open database file/);
    expect(r.node('unbound').error).toBe('sqlite step: parameter :b has no value (params: a)');
    const check = await run(`steps:\n  - type: sqlite\n    name: c\n    config: { dsn: "${join(r.dir, 't.db')}" }\n    command: SELECT count(*) AS n FROM u\n`);
    expect(await check.log('c')).toBe('{"n":0}\n');
  });

  test('config.timeout and the step timeout stop a long query at once (its process is killed)', async () => {
    const long = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT count(*) FROM c';
    const t = Date.now();
    const r = await run(`
type: graph
steps:
  - name: own
    type: sqlite
    config: { dsn: ":memory:", timeout: 1 }
    command: ${long}
  - name: step
    type: sqlite
    config: { dsn: ":memory:" }
    command: ${long}
    timeoutSec: 1
  - name: alive
    command: echo the engine kept running
`);
    expect(r.node('own').error).toBe('sqlite step: timed out after 1s (config.timeout)');
    expect(r.node('step').error).toContain('timed out after 1s');
    expect(Date.now() - t).toBeLessThan(6_000);
    expect(await r.log('alive')).toBe('the engine kept running\n');
  });

  test('config.file: SQL read from a file relative to the working directory, as written', async () => {
    const r = await run(`
steps:
  - name: f
    type: sqlite
    config: { dsn: ":memory:", file: queries/q.sql, params: { x: 5 } }
`, { files: { 'q.sql': "SELECT :x AS x, '${NOT_EXPANDED}' AS t;\n" } });
    expect(r.node('f').error).toMatch(/^sqlite step: cannot read config.file \/.*\/queries\/q\.sql: ENOENT$/);
    const ok = await run(`
steps:
  - name: f
    type: sqlite
    config: { dsn: ":memory:", file: q.sql, params: { x: 5 } }
`, { files: { 'q.sql': "SELECT :x AS x, '${NOT_EXPANDED}' AS t;\n" } });
    expect(await ok.log('f')).toBe('{"x":5,"t":"${NOT_EXPANDED}"}\n');
  });

  test('the example DAG runs', async () => {
    const r = await run(example('sqlite.yaml'));
    expect({ status: r.status, error: r.run.status.run.nodes.map((n) => n.error).filter(Boolean) }).toEqual({ status: 'succeeded', error: [] });
    expect(await r.log('show')).toBe('greenhouse: 1 readings, warmest 21.5\n');
    expect(existsSync(join(r.dir, 'metrics.db'))).toBe(true);
  });
});
