import { paramNameProblem } from './param-names.js';
import { startParamsProblem } from '../vars/params.js';

describe('paramNameProblem', () => {
  it.each(['NAME', 'name', '_x', 'A1_b', '1', '12', 'ENV', 'NODE_ID', 'PATHS', 'MY_PATH', 'HOMEPAGE'])('accepts %s', (n) => {
    expect(paramNameProblem(n)).toBeUndefined();
  });
  it.each([
    'BASH_FUNC_echo%%', 'BASH_FUNC_x', 'BASH_ENV', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'NODE_OPTIONS', 'PATH',
    'IFS', 'PS4', 'SHELLOPTS', 'PYTHONPATH', 'PYTHONSTARTUP', 'PERL5OPT', 'RUBYOPT', 'GCONV_PATH', 'HOME', 'SHELL', 'SVC_PARAMS_JSON',
    'GIT_SSH_COMMAND', 'JAVA_TOOL_OPTIONS', 'a.b', 'a-b', '1a', 'with space', '',
  ])('refuses %s', (n) => {
    expect(paramNameProblem(n)).toContain(JSON.stringify(n));
  });
});

describe('startParamsProblem', () => {
  it.each([
    ['A=1 B="x y" pos', undefined],
    ['{"A": "1", "1": "x"}', undefined],
    ['["a", "b"]', undefined],
    ['', undefined],
    ['X=1 BASH_FUNC_echo%%="() { id; }"', 'BASH_FUNC_echo%%'],
    ['BASH_ENV=/tmp/x', 'BASH_ENV'],
    ['{"LD_PRELOAD": "/tmp/x.so"}', 'LD_PRELOAD'],
    ['{"a b": "1"}', 'a b'],
  ])('%s', (text, bad) => {
    const p = startParamsProblem(text);
    if (bad === undefined) expect(p).toBeUndefined();
    else expect(p).toContain(JSON.stringify(bad));
  });
});
