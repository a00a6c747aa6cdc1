import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { TEXT_VAR, textOutOfArgv } from './argv-text.js';

const shells = ['/bin/sh', '/bin/bash', '/bin/dash', '/usr/bin/zsh'].filter((s) => existsSync(s));

/** Runs argv as given, then through textOutOfArgv: both must print, exit and signal alike. */
function both(shell: string[], text: string, args: string[] = []): Array<{ out: string; code: number | null; signal: NodeJS.Signals | null }> {
  const argv = [...shell, '-c', text, ...args];
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const moved = textOutOfArgv(argv, shell, env);
  return [{ argv, env }, moved].map(({ argv: [file, ...rest], env: e }) => {
    const r = spawnSync(file!, rest, { env: e, encoding: 'utf8' });
    return { out: r.stdout, code: r.status, signal: r.signal };
  });
}

describe('textOutOfArgv', () => {
  test('the text leaves argv for the environment; the wrapper is all the shell gets with -c', () => {
    const r = textOutOfArgv(['/bin/bash', '-e', '-c', 'echo secret', 'zero', 'one'], ['/bin/bash', '-e'], { A: '1' });
    expect(r.argv).toEqual(['/bin/bash', '-e', '-c', `eval "unset ${TEXT_VAR}; $${TEXT_VAR}"`, 'zero', 'one']);
    expect(r.env).toEqual({ A: '1', [TEXT_VAR]: 'echo secret' });
    expect(r.argv.join(' ')).not.toContain('secret');
  });

  test.each([
    [[], ['echo', 'x']],
    [['python3'], ['python3', '-c', 'print(1)']],
    [['/bin/sh'], ['/bin/sh', '/tmp/script']],
  ])('shell %j: argv %j is kept as is (no shell, not POSIX, a script file)', (shell, argv) => {
    expect(textOutOfArgv(argv, shell, {})).toEqual({ argv, env: {} });
  });

  test.each(shells)('%s: same output, exit code, $0, positional args, errexit, exec and signal', (sh) => {
    const cases: Array<[string[], string, string[]]> = [
      [[sh], 'echo "$0|$1|$#"; exit 7', ['zero', 'one']],
      [[sh, '-e'], 'false; echo never', []],
      [[sh], 'echo "[$' + TEXT_VAR + ']"; env | grep -c ' + TEXT_VAR + ' || :', []],
      [[sh], 'exec echo replaced', []],
      [[sh], 'trap "echo trapped" EXIT; kill -TERM $$', []],
      [[sh], 'f() { return 3; }; f', []],
    ];
    for (const [shell, text, args] of cases) {
      const [direct, moved] = both(shell, text, args);
      expect(moved).toEqual(direct);
    }
  });

  test('the variable is gone for the command and its children', () => {
    const [, moved] = both(['/bin/sh'], `echo "[\${${TEXT_VAR}-unset}]"; env | grep ${TEXT_VAR} || echo none`);
    expect(moved!.out).toBe('[unset]\nnone\n');
  });
});
