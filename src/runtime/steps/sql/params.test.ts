import { StepError } from '../runner.js';
import { bindStatement, stepParams, type Params } from './params.js';
import { splitSql, type Dialect } from './split.js';

const bind = (sql: string, params: Params, d: Dialect = 'postgres') => bindStatement(splitSql(sql, d)[0]!, params, d, 'postgres step');
const named = (o: Record<string, unknown>): Params => ({ kind: 'named', values: new Map(Object.entries(o)) });

describe('parameters of database steps', () => {
  test('config.params: a map is named, a list positional', () => {
    expect(stepParams('postgres', { params: { a: 1 } }, undefined, {})).toEqual(named({ a: 1 }));
    expect(stepParams('postgres', { params: [1, 'x'] }, undefined, {})).toEqual({ kind: 'positional', values: [1, 'x'] });
    expect(stepParams('postgres', {}, undefined, {})).toEqual({ kind: 'none' });
  });

  test('step params: a map or a string, ${VAR} expanded from the step environment', () => {
    const env = { WHO: 'ada', OUT: '{"id": 7}' };
    expect(stepParams('postgres', {}, { who: '${WHO}', id: '${OUT.id}', n: 3 }, env)).toEqual(named({ who: 'ada', id: '7', n: 3 }));
    expect(stepParams('postgres', {}, 'who=${WHO} note="a b"', env)).toEqual(named({ who: 'ada', note: 'a b' }));
    expect(stepParams('postgres', {}, '${WHO} 2', env)).toEqual({ kind: 'positional', values: ['ada', '2'] });
  });

  test('mixed or doubled params are errors', () => {
    expect(() => stepParams('sqlite', {}, 'a b=1', {})).toThrow('mixes positional values and NAME=value pairs');
    expect(() => stepParams('sqlite', { params: [1] }, 'a', {})).toThrow('params and config.params are both set');
    expect(() => stepParams('sqlite', { params: 'x' }, undefined, {})).toThrow(StepError);
  });

  test('named: each name one number, values in order; the text is never interpolated', () => {
    const b = bind("select :b, :a, :b, ':a'", named({ a: "x'; drop table t; --", b: 2 }));
    expect(b.sql).toBe("select $1, $2, $1, ':a'");
    expect(b.values).toEqual([2, "x'; drop table t; --"]);
    expect(bind('select :a, @a, $b', named({ a: 1, b: 2 }), 'sqlite').sql).toBe('select ?1, ?1, ?2');
    expect(() => bind('select :a, $1', named({ a: 1 }))).toThrow('$1 is a positional placeholder, but params is a map of names (use :name)');
  });

  test('named: positions in the sent text map back to the written one', () => {
    const b = bind('select :long_name, nope', named({ long_name: 1 }));
    expect(b.sql).toBe('select $1, nope');
    expect(b.original(b.sql.indexOf('nope'))).toBe('select :long_name, nope'.indexOf('nope'));
    expect(b.original(3)).toBe(3);
  });

  test('a name without a value, or named placeholders without named params, is an error', () => {
    expect(() => bind('select :a, :b', named({ a: 1 }))).toThrow('parameter :b has no value (params: a)');
    expect(() => bind('select :a', { kind: 'positional', values: [1] })).toThrow('parameter :a has no value (the step has positional params only)');
  });

  test('positional: the statement gets the values it uses', () => {
    expect(bind('select $2', { kind: 'positional', values: [1, 2, 3] }).values).toEqual([1, 2]);
    expect(bind('select 1', { kind: 'positional', values: [1, 2] }).values).toEqual([]);
    expect(bind('select ?, ?', { kind: 'positional', values: ['a', 'b', 'c'] }, 'sqlite').values).toEqual(['a', 'b']);
    expect(() => bind('select $3', { kind: 'positional', values: [1] })).toThrow('uses 3 positional parameters, params has 1');
    expect(() => bind('select $1', { kind: 'none' })).toThrow('params has 0');
  });
});
