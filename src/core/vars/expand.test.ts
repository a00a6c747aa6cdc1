import { jest } from '@jest/globals';
import { expandAll, expandVars, jsonPath, splitBackquotes } from './expand.js';
import type { Lookup } from './expand.js';

const vars: Record<string, string> = {
  A: 'a',
  B: 'b',
  AB: 'ab',
  EMPTY: '',
  '1': 'one',
  '2': 'two',
  '10': 'ten',
  OBJ: '{"x": {"y": "deep"}, "n": 3, "items": [{"id": "i0"}, {"id": "i1", "tags": ["t"]}], "nil": null, "key with space": 1}',
  ARR: '[1, "two", {"k": true}]',
  NOTJSON: '{oops',
  STR: '"quoted"',
  DOLLAR: '$B',
  TICK: '`rm -rf /`',
};
const lookup: Lookup = (n) => (Object.hasOwn(vars, n) ? vars[n] : undefined);

describe('expandVars', () => {
  it.each([
    ['plain text', 'plain text'],
    ['${A}', 'a'],
    ['$A', 'a'],
    ['$A$B', 'ab'],
    ['${A}${B}', 'ab'],
    ['$AB', 'ab'],
    ['${A}B', 'aB'],
    ['$A-$B', 'a-b'],
    ['x${EMPTY}y', 'xy'],
    ['$1 $2 ${10} $10', 'one two ten one0'],
    ['${OBJ.x.y}', 'deep'],
    ['${OBJ.x}', '{"y":"deep"}'],
    ['${OBJ.n}', '3'],
    ['${OBJ.items[1].id}', 'i1'],
    ['${OBJ.items[0]}', '{"id":"i0"}'],
    ['${OBJ.items[1].tags}', '["t"]'],
    ['${OBJ.items[-1].id}', 'i1'],
    ['${OBJ["key with space"]}', '1'],
    ['${OBJ.nil}', 'null'],
    ['${OBJ.missing}', ''],
    ['${OBJ.items[5].id}', ''],
    ['${OBJ.x.y.z}', ''],
    ['${ARR[1]}', 'two'],
    ['${ARR[2].k}', 'true'],
    ['${STR.x}', ''],
    ['${NOTJSON.x}', '${NOTJSON.x}'],
    ['$$A', '$A'],
    ['\\$A', '$A'],
    ['$$$A', '$a'],
    ['cost: 5$', 'cost: 5$'],
    ['$', '$'],
    ['$ A', '$ A'],
    ['${}', '${}'],
    ['${A', '${A'],
    ['${A:-def}', '${A:-def}'],
    ['${A${B}}', '${Ab}'],
    ['{${A}}', '{a}'],
    ["echo '$A'", "echo 'a'"],
    ['$DOLLAR', '$B'],
    ['$HOME/x', '$HOME/x'],
    ['${UNKNOWN.x}', '${UNKNOWN.x}'],
    ['${OBJ.}', '${OBJ.}'],
    ['${OBJ.items[x]}', '${OBJ.items[x]}'],
    ['$(echo $A)', '$(echo a)'],
    ['${OBJ.x.y:0:2}', 'de'],
    ['${OBJ.x.y:1}', 'eep'],
    ['${OBJ.x.y: -2}', 'ep'],
    ['${OBJ.x.y:-word}', ''],
    ['${UNKNOWN.x:0:2}', '${UNKNOWN.x:0:2}'],
  ])('%j -> %j', (input, expected) => {
    expect(expandVars(input, lookup)).toBe(expected);
  });

  it.each([
    ['$HOME/x', '/x'],
    ['${UNKNOWN}y', 'y'],
    ['${NOTJSON.x}', ''],
    ['${A:-def}', '${A:-def}'],
    ['$A', 'a'],
  ])('keepUnknown false: %j -> %j', (input, expected) => {
    expect(expandVars(input, lookup, { keepUnknown: false })).toBe(expected);
  });

  it('does not re-expand substituted values', () => {
    expect(expandVars('${DOLLAR}$DOLLAR', lookup)).toBe('$B$B');
  });
});

describe('jsonPath', () => {
  const v = { a: { b: [10, 20, { c: 'x' }] }, 'k.k': 1 };
  it.each<[string, unknown]>([
    ['', v],
    ['.a.b[2].c', 'x'],
    ['a.b[0]', 10],
    ['.a.b[-1]', { c: 'x' }],
    ['.a.b[3]', undefined],
    ['.a.b.c', undefined],
    ['.a[0]', undefined],
    ['["k.k"]', 1],
    ['.a..b', undefined],
    ['.toString', undefined],
    ['.a.b[', undefined],
  ])('%j', (path, expected) => {
    expect(jsonPath(v, path)).toEqual(expected);
  });
});

describe('splitBackquotes', () => {
  it.each([
    ['a `b` c', [{ command: false, text: 'a ' }, { command: true, text: 'b' }, { command: false, text: ' c' }]],
    ['`x``y`', [{ command: true, text: 'x' }, { command: true, text: 'y' }]],
    ['a \\` b', [{ command: false, text: 'a \\` b' }]],
    ['a `open', [{ command: false, text: 'a `open' }]],
    ['``', [{ command: true, text: '' }]],
  ])('%j', (input, expected) => {
    expect(splitBackquotes(input)).toEqual(expected);
  });
});

describe('expandAll', () => {
  const run = jest.fn(async (cmd: string) => `<${cmd}>\n`);
  beforeEach(() => run.mockClear());

  it.each([
    ['x `echo $A` y', 'x <echo a> y'],
    ['`a``b`', '<a><b>'],
    ['${A}-`date`', 'a-<date>'],
    ['keep \\` literal', 'keep \\` literal'],
    ['unterminated `echo', 'unterminated `echo'],
    ['empty `` cmd', 'empty  cmd'],
    ['$TICK', '`rm -rf /`'],
  ])('%j -> %j', async (input, expected) => {
    await expect(expandAll(input, lookup, run)).resolves.toBe(expected);
  });

  it('never executes backquotes that come from a variable value', async () => {
    await expandAll('echo $TICK', lookup, run);
    expect(run).not.toHaveBeenCalled();
  });

  it('runs commands in order and trims their output', async () => {
    const calls: string[] = [];
    const out = await expandAll('`first` `second`', lookup, async (c) => {
      calls.push(c);
      return `  ${c}  \n\n`;
    });
    expect(out).toBe('first second');
    expect(calls).toEqual(['first', 'second']);
  });

  it('passes keepUnknown through', async () => {
    await expect(expandAll('$NOPE`x $NOPE`', lookup, run, { keepUnknown: false })).resolves.toBe('<x >');
  });
});
