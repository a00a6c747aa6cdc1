import { dotenvOrder, parseDotenv } from './dotenv.js';

describe('parseDotenv', () => {
  it.each<[string, string, Array<[string, string]>]>([
    ['simple', 'A=1\nB=two', [['A', '1'], ['B', 'two']]],
    ['export prefix', 'export A=1\nexport  B = 2', [['A', '1'], ['B', '2']]],
    ['comments and blanks', '# c\n\n  # indented\nA=1\n\n', [['A', '1']]],
    ['CRLF and BOM', '\uFEFFA=1\r\nB=2\r\n', [['A', '1'], ['B', '2']]],
    ['empty value', 'A=\nB=""', [['A', ''], ['B', '']]],
    ['spaces around', '  A  =  spaced value  ', [['A', 'spaced value']]],
    ['inline comment unquoted', 'A=value # comment\nB=a\t# tab comment', [['A', 'value'], ['B', 'a']]],
    ['hash without space is kept', 'A=abc#def\nB=#x', [['A', 'abc#def'], ['B', '#x']]],
    ['equals in value', 'URL=postgres://u:p@h/db?a=b', [['URL', 'postgres://u:p@h/db?a=b']]],
    ['single quotes literal', "A='x \\n $Y # z'", [['A', 'x \\n $Y # z']]],
    ['double quote escapes', 'A="l1\\nl2\\t\\"q\\" \\\\ \\$X"', [['A', 'l1\nl2\t"q" \\ \\$X']]],
    ['comment after quoted', 'A="v # not comment" # comment', [['A', 'v # not comment']]],
    ['multi-line double quoted', 'A="first  \n  second\nthird"\nB=2', [['A', 'first  \n  second\nthird'], ['B', '2']]],
    ['multi-line single quoted', "A='x\ny'", [['A', 'x\ny']]],
    ['escaped quote does not close', 'A="a\\"\nb"', [['A', 'a"\nb']]],
    ['later duplicate kept in order', 'A=1\nA=2', [['A', '1'], ['A', '2']]],
    ['no expansion', 'A=${HOME}/x', [['A', '${HOME}/x']]],
  ])('%s', (_l, text, expected) => {
    const r = parseDotenv(text);
    expect(r.errors).toEqual([]);
    expect(r.entries.map((e) => [e.name, e.value])).toEqual(expected);
  });

  it.each<[string, string, string[], string[]]>([
    ['no equals', 'A=1\njust text\nB=2', ['line 2: expected KEY=VALUE'], ['A', 'B']],
    ['bad name', '1A=x\nA-B=y\nOK=1', ['line 1: invalid variable name "1A"', 'line 2: invalid variable name "A-B"'], ['OK']],
    ['unterminated double', 'A=1\nB="open\nC=3', ['line 2: unterminated double-quoted value'], ['A', 'C']],
    ['unterminated single', "B='open", ['line 1: unterminated single-quoted value'], []],
    ['text after quote', 'A="x" y\nB=1', ['line 1: unexpected text after quoted value: y'], ['B']],
    ['line numbers after multi-line', 'A="a\nb"\nbad', ['line 3: expected KEY=VALUE'], ['A']],
  ])('reports %s without throwing', (_l, text, errors, names) => {
    const r = parseDotenv(text);
    expect(r.errors).toEqual(errors);
    expect(r.entries.map((e) => e.name)).toEqual(names);
  });
});

describe('dotenvOrder', () => {
  it.each<[string[], string[]]>([
    [[], []],
    [['.env', 'a.env', '.env', 'b.env', 'a.env'], ['.env', 'a.env', 'b.env']],
  ])('%j', (files, expected) => {
    expect(dotenvOrder(files)).toEqual(expected);
  });
});
