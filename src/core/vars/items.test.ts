import { itemToString, parseParallelItems } from './items.js';
import type { ParallelItem } from './items.js';

describe('parseParallelItems', () => {
  it.each<[string, ParallelItem[]]>([
    ['', []],
    ['   \n ', []],
    ['["a", "b c"]', ['a', 'b c']],
    ['[1, true, null, 2.5, [1, 2]]', ['1', 'true', 'null', '2.5', '[1,2]']],
    ['[{"id": 1}, "x"]', [{ id: 1 }, 'x']],
    ['{"file": "a.txt", "n": 2}', [{ file: 'a.txt', n: 2 }]],
    ['  {"a": {"b": [1]}}  ', [{ a: { b: [1] } }]],
    ['[not json, x]', ['[not json', 'x]']],
    ['a\nb c\n\n  d  \r\ne', ['a', 'b c', 'd', 'e']],
    ['a,b, c ,,d', ['a', 'b', 'c', 'd']],
    ['a;b; c', ['a', 'b', 'c']],
    ['a|b | c', ['a', 'b', 'c']],
    ['a\tb\t c', ['a', 'b', 'c']],
    ['a b   c', ['a', 'b', 'c']],
    ['single', ['single']],
    ['"item one" two "three"', ['item one', 'two', 'three']],
    ['x "a, b" y', ['x', 'a, b', 'y']],
    ['"" "x"', ['', 'x']],
    ['"open ended', ['"open', 'ended']],
    ['"a" "open ended', ['a', 'open ended']],
    ['a,b;c;d', ['a,b', 'c', 'd']],
    ['a,b;c', ['a,b', 'c']],
    ['a|b;c', ['a', 'b;c']],
    ['a\tb|c', ['a', 'b|c']],
    ['key="v"', ['key=', 'v']],
  ])('%j', (input, expected) => {
    expect(parseParallelItems(input)).toEqual(expected);
  });
});

describe('itemToString', () => {
  it.each<[ParallelItem | number | boolean, string]>([
    ['plain', 'plain'],
    [{ a: 1, b: [1, 'x'] }, '{"a":1,"b":[1,"x"]}'],
    [3, '3'],
    [false, 'false'],
  ])('%j', (item, expected) => {
    expect(itemToString(item)).toBe(expected);
  });
});
