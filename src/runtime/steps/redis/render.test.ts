import { ErrorReply, MapReply, render, toReply, type Reply } from './render.js';

const hash = toReply(['2', 'two', 'name', 'ada', 'note', 'a,"b"'], true);
const list: Reply = ['a', 7, null, ['x', 'y']];

describe('redis replies as output', () => {
  test('toReply pairs a flat name/value list into a map in the server order; errors become error replies', () => {
    expect(hash).toEqual(new MapReply([['2', 'two'], ['name', 'ada'], ['note', 'a,"b"']]));
    expect(toReply([1, new Error('WRONGTYPE x'), undefined])).toEqual([1, new ErrorReply('WRONGTYPE x'), null]);
    expect(toReply(Buffer.from('bytes'))).toBe('bytes');
  });

  test('json: indented like JSON.stringify(_, null, 2), map order kept, nil null, error as {"error"}', () => {
    expect(render('hello', 'json', 'null')).toBe('"hello"\n');
    expect(render(42, 'json', 'null')).toBe('42\n');
    expect(render(null, 'json', 'null')).toBe('null\n');
    expect(render([], 'json', 'null')).toBe('[]\n');
    expect(render(list, 'json', 'null')).toBe(`${JSON.stringify(['a', 7, null, ['x', 'y']], null, 2)}\n`);
    expect(render(hash, 'json', 'null')).toBe('{\n  "2": "two",\n  "name": "ada",\n  "note": "a,\\"b\\""\n}\n');
    expect(render(['OK', new ErrorReply('WRONGTYPE no')], 'json', 'null')).toBe('[\n  "OK",\n  {\n    "error": "WRONGTYPE no"\n  }\n]\n');
  });

  test('jsonl: one compact value per element or per map entry', () => {
    expect(render(list, 'jsonl', 'null')).toBe('"a"\n7\nnull\n["x","y"]\n');
    expect(render(hash, 'jsonl', 'null')).toBe('{"2":"two"}\n{"name":"ada"}\n{"note":"a,\\"b\\""}\n');
    expect(render('v', 'jsonl', 'null')).toBe('"v"\n');
    expect(render([], 'jsonl', 'null')).toBe('');
  });

  test('raw: text as it is, nil as nullValue, lists flattened a line each, maps as "name: value"', () => {
    expect(render('{"a":1}', 'raw', 'null')).toBe('{"a":1}\n');
    expect(render(list, 'raw', '(nil)')).toBe('a\n7\n(nil)\nx\ny\n');
    expect(render(hash, 'raw', 'null')).toBe('2: two\nname: ada\nnote: a,"b"\n');
    expect(render(new MapReply([['k', ['a', 'b']], ['n', null]]), 'raw', '-')).toBe('k: ["a","b"]\nn: -\n');
  });

  test('csv: a list is one row, a map a row per pair, cells quoted per RFC 4180, nested values as JSON', () => {
    expect(render(list, 'csv', '')).toBe('a,7,,"[""x"",""y""]"\n');
    expect(render(hash, 'csv', 'null')).toBe('2,two\nname,ada\nnote,"a,""b"""\n');
    expect(render('multi\nline', 'csv', 'null')).toBe('"multi\nline"\n');
    expect(render(null, 'csv', 'null')).toBe('null\n');
    expect(render([], 'csv', 'null')).toBe('');
  });
});
