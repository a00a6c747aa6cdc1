import { toCamelKey } from './outputs.js';

describe('toCamelKey', () => {
  it.each([
    ['RESULT', 'result'],
    ['RESULT_VALUE', 'resultValue'],
    ['TWO_WORDS_HERE', 'twoWordsHere'],
    ['ALREADY_CAMEL_Case', 'alreadyCamelCase'],
    ['myVar', 'myVar'],
    ['my_var', 'myVar'],
    ['_LEADING__DOUBLE_', 'leadingDouble'],
    ['X1_Y2', 'x1Y2'],
  ])('%s -> %s', (name, key) => {
    expect(toCamelKey(name)).toBe(key);
  });
});
