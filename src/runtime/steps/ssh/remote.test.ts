import { execFileSync } from 'node:child_process';
import { commandLine, quote, remoteDir, scriptLine, shellText } from './remote.js';

/** What /bin/sh makes of a line, as the remote login shell would run it. */
const sh = (line: string, input = ''): string => execFileSync('/bin/sh', ['-c', line], { input, encoding: 'utf8' });

describe('remote command lines', () => {
  test.each(["plain", "it's", "a'b'c", "$HOME `x` \\ \"q\"", "new\nline", ""])('quote(%j) survives the shell', (s) => {
    expect(sh(`printf %s ${quote(s)}`)).toBe(s);
  });

  test('a command runs as written, or as <shell> -c <command>; a directory is entered first', () => {
    expect(commandLine('echo hi')).toBe('echo hi');
    expect(commandLine("echo 'a b'", 'bash -e')).toBe(`bash -e -c 'echo '\\''a b'\\'''`);
    expect(sh(commandLine("printf '%s|' \"$0\" 'a b'", 'sh'))).toBe('sh|a b|');
    expect(sh(commandLine('pwd', undefined, '/tmp'))).toBe('/tmp\n');
    expect(commandLine('pwd', undefined, '~/x y')).toBe("cd ~/'x y' && pwd");
  });

  test('a script is run from a temp file that is removed after; stdin reads by the script see EOF', () => {
    const script = 'echo "file $0"\nif read x; then echo "read $x"; else echo eof; fi\nexit 3\n';
    let out = '';
    try {
      sh(scriptLine({ script }), script);
    } catch (e) {
      out = String((e as { stdout: string }).stdout);
      expect((e as { status: number }).status).toBe(3);
    }
    const file = /^file (.*)$/m.exec(out)?.[1] ?? '';
    expect(file).toMatch(/svc-ssh\./);
    expect(out).toContain('eof');
    expect(sh(`test -e ${quote(file)} && echo exists || echo gone`)).toBe('gone\n');
  });

  test('a script runs by its shebang, the shell, or an interpreter command', () => {
    expect(sh(scriptLine({ script: '#!/bin/sh\necho "[$0]" | grep -c svc-ssh' }), '#!/bin/sh\necho "[$0]" | grep -c svc-ssh')).toBe('1\n');
    const s = 'echo "$0" | grep -q svc-ssh && echo ok';
    expect(sh(scriptLine({ script: s, shell: 'sh -e' }), s)).toBe('ok\n');
    expect(sh(scriptLine({ script: 'print(6*7)', interpreter: 'python3' }), 'print(6*7)')).toBe('42\n');
    expect(sh(scriptLine({ script: 'print(6*7)', interpreter: 'python3', shell: 'sh -e', dir: '/tmp' }), 'print(6*7)')).toBe('42\n');
  });

  test('shell text and the remote directory', () => {
    expect(shellText(['bash', '-o', 'pipefail'])).toBe('bash -o pipefail');
    expect(shellText(' zsh ')).toBe('zsh');
    expect(shellText('')).toBeUndefined();
    expect(remoteDir(undefined, '/local')).toBeUndefined();
    expect(remoteDir('/srv/app', '/srv/app')).toBe('/srv/app');
    expect(remoteDir('work', '/local/dags/work')).toBe('work');
    expect(remoteDir('${APP_DIR}', '/srv/app')).toBe('/srv/app');
  });
});
