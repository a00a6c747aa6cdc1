import { isValidDagName, isValidFileName, stepIdProblem, toCamelKey } from './names.js';

describe('names', () => {
  it.each<[string, boolean]>([
    ['etl.daily_v2-x', true], ['', false], ['a'.repeat(40), true], ['a'.repeat(41), false], ['has space', false], ['é', false],
  ])('isValidDagName(%j) = %s', (name, ok) => expect(isValidDagName(name)).toBe(ok));

  it.each<[string, boolean]>([['etl_daily-2', true], ['etl.daily', false], ['', false], ['a/b', false]])(
    'isValidFileName(%j) = %s', (name, ok) => expect(isValidFileName(name)).toBe(ok));

  it.each([
    ['RESULT', 'result'], ['RESULT_VALUE', 'resultValue'], ['TWO_WORDS_HERE', 'twoWordsHere'],
    ['ALREADY_CAMEL_Case', 'alreadyCamelCase'], ['myVar', 'myVar'], ['_LEADING', 'leading'],
  ])('toCamelKey(%j) = %j', (name, key) => expect(toCamelKey(name)).toBe(key));

  it.each([['build', undefined], ['b-1_x', undefined], ['1b', 'must start'], ['env', 'reserved'], ['Outputs', 'reserved']])(
    'stepIdProblem(%j)', (id, problem) => {
      const p = stepIdProblem(id);
      if (problem === undefined) expect(p).toBeUndefined();
      else expect(p).toContain(problem);
    });
});
