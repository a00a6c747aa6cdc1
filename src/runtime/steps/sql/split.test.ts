import { lineColumn, splitSql, type Dialect } from './split.js';

const texts = (sql: string, d: Dialect = 'postgres'): string[] => splitSql(sql, d).map((s) => s.text);
const marks = (sql: string, d: Dialect): string[] => splitSql(sql, d).flatMap((s) => s.placeholders.map((p) => `${s.text.slice(p.start, p.end)}=${p.name ?? p.index}`));

describe('splitting SQL into statements', () => {
  test('at semicolons, blanks and empty statements dropped, offsets kept', () => {
    const sql = 'create table t (a int);\n\n  insert into t values (1);;\nselect * from t';
    const got = splitSql(sql, 'postgres');
    expect(got.map((s) => s.text)).toEqual(['create table t (a int)', 'insert into t values (1)', 'select * from t']);
    expect(got.map((s) => lineColumn(sql, s.offset))).toEqual([{ line: 1, column: 1 }, { line: 3, column: 3 }, { line: 4, column: 1 }]);
  });

  test.each<[string, string, Dialect, string[]]>([
    ['strings', "select 'a;b', 'it''s;' ; select 2", 'postgres', ["select 'a;b', 'it''s;'", 'select 2']],
    ['E-strings', "select E'a\\';b'; select 2", 'postgres', ["select E'a\\';b'", 'select 2']],
    ['quoted identifiers', 'select 1 as "x;y"; select 2', 'postgres', ['select 1 as "x;y"', 'select 2']],
    ['line comments', 'select 1 -- a; b\n; select 2', 'postgres', ['select 1 -- a; b', 'select 2']],
    ['nested block comments', 'select /* a /* ; */ ; */ 1; select 2', 'postgres', ['select /* a /* ; */ ; */ 1', 'select 2']],
    ['dollar quotes', 'create function f() returns int as $$ begin; return 1; end $$ language plpgsql; select f()', 'postgres',
      ['create function f() returns int as $$ begin; return 1; end $$ language plpgsql', 'select f()']],
    ['tagged dollar quotes', 'do $body$ begin perform 1; end $body$; select 2', 'postgres', ['do $body$ begin perform 1; end $body$', 'select 2']],
    ['BEGIN ATOMIC bodies', 'create function f() returns int begin atomic select 1; select case when true then 2 end; end; select 3', 'postgres',
      ['create function f() returns int begin atomic select 1; select case when true then 2 end; end', 'select 3']],
    ['sqlite triggers', 'create trigger tr after insert on t begin update t set a = case when 1 then 2 end; insert into u values (1); end; select 1', 'sqlite',
      ['create trigger tr after insert on t begin update t set a = case when 1 then 2 end; insert into u values (1); end', 'select 1']],
    ['a transaction BEGIN is a statement', 'begin; insert into t values (1); commit', 'sqlite', ['begin', 'insert into t values (1)', 'commit']],
    ['sqlite brackets and backquotes', 'select 1 as [a;b], 2 as `c;d`; select 2', 'sqlite', ['select 1 as [a;b], 2 as `c;d`', 'select 2']],
    ['a comment-only tail', 'select 1; -- the end\n', 'postgres', ['select 1']],
  ])('%s', (_name, sql, dialect, want) => {
    expect(texts(sql, dialect)).toEqual(want);
  });

  test('placeholders: named, $n and ?; not in strings, comments, casts or array slices', () => {
    expect(marks("select :a, $2, ':x', \"$1\" -- :c\n, a::int, arr[1:n], :a, $$ :d $$, x$1", 'postgres')).toEqual([':a=a', '$2=2', ':a=a']);
    expect(marks("select :a, ?, ?5, ?, ':b', [?]", 'sqlite')).toEqual([':a=a', '?=1', '?5=5', '?=6']);
    expect(marks('select @a, $b, x$c, "$d"', 'sqlite')).toEqual(['@a=a', '$b=b']);
  });

  test('placeholder positions are relative to their statement', () => {
    const [, second] = splitSql('select 1;\n  select :id', 'sqlite');
    expect(second!.text.slice(second!.placeholders[0]!.start, second!.placeholders[0]!.end)).toBe(':id');
  });

  test('unterminated quotes and comments end at the end of the text', () => {
    expect(texts("select 'abc; select 2")).toEqual(["select 'abc; select 2"]);
    expect(texts('select 1 /* ; select 2')).toEqual(['select 1 /* ; select 2']);
  });
});
