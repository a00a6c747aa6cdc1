import { paramString, paramsToEnv, parseParamString, resolveParams } from './params.js';
import type { ParamDef } from '../spec/types.js';

describe('parseParamString', () => {
  it.each([
    ['', []],
    ['   ', []],
    ['a', [{ value: 'a' }]],
    ['a "b c" K=v K2="x y" K3=\'z\'', [{ value: 'a' }, { value: 'b c' }, { name: 'K', value: 'v' }, { name: 'K2', value: 'x y' }, { name: 'K3', value: 'z' }]],
    ['  a\tb\n c ', [{ value: 'a' }, { value: 'b' }, { value: 'c' }]],
    ['K=', [{ name: 'K', value: '' }]],
    ['K=""', [{ name: 'K', value: '' }]],
    ['K=a=b', [{ name: 'K', value: 'a=b' }]],
    ['"K=v"', [{ value: 'K=v' }]],
    ['1=x', [{ value: '1=x' }]],
    ['my-param=x a.b=y', [{ name: 'my-param', value: 'x' }, { name: 'a.b', value: 'y' }]],
    ['$X=1', [{ value: '$X=1' }]],
    ['K="say \\"hi\\" \\\\ ok"', [{ name: 'K', value: 'say "hi" \\ ok' }]],
    ['K="a\\nb\\tc"', [{ name: 'K', value: 'a\nb\tc' }]],
    ['K="\\$HOME \\`x\\`"', [{ name: 'K', value: '\\$HOME \\`x\\`' }]],
    ["K='a \\n \"b\"'", [{ name: 'K', value: 'a \\n "b"' }]],
    ['K=pre"mid dle"post', [{ name: 'K', value: 'premid dlepost' }]],
    ['D=`date +%Y %m`', [{ name: 'D', value: '`date +%Y %m`' }]],
    ['K="unterminated value', [{ name: 'K', value: 'unterminated value' }]],
    ['K=\'open', [{ name: 'K', value: 'open' }]],
    ['{"a":1}', [{ value: '{a:1}' }]],
  ])('%j', (input, expected) => {
    expect(parseParamString(input)).toEqual(expected);
  });
});

const defs: ParamDef[] = [
  { default: 'p1' },
  { name: 'NAME', default: 'alice' },
  { default: 'p2' },
  { name: 'EMPTY', default: '' },
];

describe('resolveParams', () => {
  it.each<[string, string | undefined, Partial<ReturnType<typeof resolveParams>>]>([
    ['defaults only', undefined, { positional: ['p1', 'p2'], named: { NAME: 'alice', EMPTY: '' } }],
    ['blank override', '  ', { positional: ['p1', 'p2'], named: { NAME: 'alice', EMPTY: '' } }],
    ['named override', 'NAME=bob', { positional: ['p1', 'p2'], named: { NAME: 'bob', EMPTY: '' } }],
    ['positional by index', 'x', { positional: ['x', 'p2'] }],
    ['positional among named', 'NAME=bob x y', { positional: ['x', 'y'], named: { NAME: 'bob', EMPTY: '' } }],
    ['extra positional appended', 'a b c', { positional: ['a', 'b', 'c'] }],
    ['unknown named added', 'NEW="v w"', { named: { NAME: 'alice', EMPTY: '', NEW: 'v w' } }],
  ])('%s', (_label, override, expected) => {
    expect(resolveParams(defs, override)).toMatchObject(expected);
  });

  it('keeps definition order in ordered, appending new ones', () => {
    expect(resolveParams(defs, 'NEW=1 EMPTY=e q r s').ordered).toEqual([
      { value: 'q' },
      { name: 'NAME', value: 'alice' },
      { value: 'r' },
      { name: 'EMPTY', value: 'e' },
      { name: 'NEW', value: '1' },
      { value: 's' },
    ]);
  });

  it('builds json with sorted named keys and positional keys "1", "2"', () => {
    const r = resolveParams(defs, 'ZED=z');
    expect(r.json).toBe('{"1":"p1","2":"p2","EMPTY":"","NAME":"alice","ZED":"z"}');
    expect(resolveParams([]).json).toBe('{}');
  });

  it.each([
    ' {"NAME": "bob",  "n": 3, "obj": {"a": [1, 2]}, "b": true, "z": null}\n',
    '{"NAME":"bob"}',
    '{}',
  ])('keeps raw JSON params byte for byte: %j', (raw) => {
    const r = resolveParams(defs, raw);
    expect(r.json).toBe(raw);
    expect(r.positional).toEqual(['p1', 'p2']);
  });

  it('reads named values from a JSON object, stringifying non-strings', () => {
    const r = resolveParams(defs, '{"NAME": "bob", "n": 3, "obj": {"a": [1, 2]}, "b": true, "z": null}');
    expect(r.named).toEqual({ NAME: 'bob', EMPTY: '', n: '3', obj: '{"a":[1,2]}', b: 'true', z: 'null' });
  });

  it('reads positional values from a JSON array', () => {
    const r = resolveParams(defs, '["x", 2]');
    expect(r.positional).toEqual(['x', '2']);
    expect(r.json).toBe('["x", 2]');
  });

  it('treats text that only looks like JSON as a param string', () => {
    const r = resolveParams([], '{not json} K=v');
    expect(r.named).toEqual({ K: 'v' });
    expect(r.positional).toEqual(['{not', 'json}']);
    expect(r.json).toBe('{"1":"{not","2":"json}","K":"v"}');
  });

  it('does not mutate the definitions', () => {
    const d: ParamDef[] = [{ name: 'A', default: 'a' }];
    resolveParams(d, 'A=b');
    expect(d).toEqual([{ name: 'A', default: 'a' }]);
  });
});

describe('paramsToEnv', () => {
  it('names positional values 1, 2, ... in order', () => {
    expect(paramsToEnv(resolveParams(defs, 'NAME=bob'))).toEqual([
      { name: '1', value: 'p1' },
      { name: 'NAME', value: 'bob' },
      { name: '2', value: 'p2' },
      { name: 'EMPTY', value: '' },
    ]);
  });
});

describe('paramString', () => {
  it('is read back exactly, quotes, $ and backquotes kept as data', () => {
    const tokens = [{ value: "it's" }, { name: 'A', value: 'x y' }, { value: 'K=v' }, { name: 'B', value: '$HOME `id` "q" \\n' }, { name: 'C', value: '' }];
    expect(parseParamString(paramString(tokens))).toEqual(tokens);
  });
});
