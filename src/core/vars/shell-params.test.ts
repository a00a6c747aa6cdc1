import { expandVars } from './expand.js';

const vars: Record<string, string> = { LONG: 'abcdefgh', EMPTY: '', PATHV: '/usr/local/bin/tool.tar.gz', W: 'world' };
const x = (text: string) => expandVars(text, (n) => vars[n], { keepUnknown: false, shellForms: true });

describe('shell parameter expansion in evaluated values', () => {
  test.each([
    ['${UNSET:-fallback}', 'fallback'], ['${EMPTY:-fallback}', 'fallback'], ['${EMPTY-fallback}', ''], ['${LONG:-x}', 'abcdefgh'],
    ['${UNSET:=d}', 'd'], ['${LONG:+alt}', 'alt'], ['${UNSET:+alt}', ''], ['${EMPTY+set}', 'set'],
    ['${UNSET:-hello $W}', 'hello world'],
    ['${#LONG}', '8'], ['${LONG:0:3}', 'abc'], ['${LONG:2}', 'cdefgh'], ['${LONG: -3}', 'fgh'], ['${LONG:(-3):2}', 'fg'], ['${LONG:1:-2}', 'bcdef'], ['${UNSET:0:3}', ''],
    ['${PATHV#*/}', 'usr/local/bin/tool.tar.gz'], ['${PATHV##*/}', 'tool.tar.gz'], ['${PATHV%.*}', '/usr/local/bin/tool.tar'], ['${PATHV%%.*}', '/usr/local/bin/tool'],
    ['${LONG/cd/XY}', 'abXYefgh'], ['${PATHV//\\//_}', '_usr_local_bin_tool.tar.gz'], ['${LONG/[a-c]/-}', '-bcdefgh'],
  ])('%s is %s', (text, want) => {
    expect(x(text)).toBe(want);
  });

  test('only when asked: a shell-bound text keeps them for the shell', () => {
    expect(expandVars('${UNSET:-fallback} ${LONG:0:3}', (n) => vars[n])).toBe('${UNSET:-fallback} ${LONG:0:3}');
  });
});
