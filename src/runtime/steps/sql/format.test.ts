import { csvField, jsonValue, resultWriter, uniqueNames, type FormatOptions } from './format.js';

function render(o: Partial<FormatOptions>, sets: [string[], unknown[][]][]): string {
  let out = '';
  const w = resultWriter({ format: 'jsonl', headers: true, nullString: '', ...o }, (t) => { out += t; });
  for (const [cols, rows] of sets) {
    w.begin(cols);
    for (const r of rows) w.row(r);
    w.end();
  }
  return out;
}

describe('result formats', () => {
  const cols = ['id', 'name', 'ok'];
  const rows = [[1, 'a,b', true], [2, null, false]];

  test('JSON lines: one object per row, columns in order (even numeric names), repeated names made unique', () => {
    expect(render({}, [[cols, rows]])).toBe('{"id":1,"name":"a,b","ok":true}\n{"id":2,"name":null,"ok":false}\n');
    expect(render({}, [[['b', '1', 'b'], [[1, 2, 3]]]])).toBe('{"b":1,"1":2,"b_2":3}\n');
    expect(uniqueNames(['a', 'a', 'a_2'])).toEqual(['a', 'a_2', 'a_2_2']);
  });

  test('JSON: one array per result, a row per line; an empty result is []', () => {
    expect(render({ format: 'json' }, [[cols, rows]])).toBe('[\n{"id":1,"name":"a,b","ok":true},\n{"id":2,"name":null,"ok":false}\n]\n');
    expect(JSON.parse(render({ format: 'json' }, [[cols, rows]]))).toHaveLength(2);
    expect(render({ format: 'json' }, [[cols, []]])).toBe('[]\n');
  });

  test('CSV: header row, RFC 4180 quoting, NULL as nullString and "" for an empty string', () => {
    expect(render({ format: 'csv' }, [[cols, [...rows, [3, 'say "hi"\nbye', true], [4, '', false]]]])).toBe(
      'id,name,ok\n1,"a,b",true\n2,,false\n3,"say ""hi""\nbye",true\n4,"",false\n');
    expect(render({ format: 'csv', headers: false, nullString: 'NULL' }, [[cols, [[2, null, false], [4, '', true]]]])).toBe('2,NULL,false\n4,,true\n');
    expect(csvField('plain')).toBe('plain');
  });

  test('values: big integers and non-finite floats as text, bytes as base64, dates as ISO, structures as JSON', () => {
    expect(jsonValue(42n)).toBe(42);
    expect(jsonValue(9007199254740993n)).toBe('9007199254740993');
    expect(jsonValue(Number.NaN)).toBe('NaN');
    expect(jsonValue(-Infinity)).toBe('-Infinity');
    expect(jsonValue(new Uint8Array([1, 2, 255]))).toBe('AQL/');
    expect(jsonValue(Buffer.from('hi'))).toBe('aGk=');
    expect(jsonValue(new Date('2024-01-02T03:04:05Z'))).toBe('2024-01-02T03:04:05.000Z');
    expect(jsonValue({ a: [1n, null] })).toEqual({ a: [1, null] });
    expect(render({ format: 'csv', headers: false }, [[['j'], [[{ a: 1 }], [[1, 2]]]]])).toBe('"{""a"":1}"\n"[1,2]"\n');
  });

  test('several results follow each other', () => {
    expect(render({ format: 'csv' }, [[['a'], [[1]]], [['b'], [[2]]]])).toBe('a\n1\nb\n2\n');
  });
});
