/**
 * hack/build-native.mjs (ADR 0008): compiles the native fork server when a C compiler is there; without
 * one the build warns and leaves none (steps are spawned from Node), except under CI=true, where it fails.
 * Each case runs on a copy of the script and the C source, so the real dist/ is never touched.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

const SOURCE = 'src/runtime/shell/fork-server.c';

function copy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-native-'));
  for (const f of ['hack/build-native.mjs', SOURCE]) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  return dir;
}

const build = (dir: string, env: Record<string, string>) =>
  spawnSync(process.execPath, [join(dir, 'hack/build-native.mjs')], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });

const hasCc = spawnSync('cc', ['--version']).status === 0;
if (!hasCc && process.env.CI === 'true') throw new Error('a C compiler (Debian gcc) is required under CI=true');
if (!hasCc) console.warn('!!! SKIPPING the native build test: no C compiler on this machine');

describe('hack/build-native.mjs', () => {
  (hasCc ? test : test.skip)('compiles dist/svc-fork-server, which refuses a wrong command line', () => {
    const dir = copy();
    const r = build(dir, {});
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const bin = join(dir, 'dist/svc-fork-server');
    const run = spawnSync(bin, ['unexpected'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/usage: svc-fork-server/);
  });

  test('without a compiler: a warning and no binary (a stale one is removed); under CI=true the build fails', () => {
    const dir = copy();
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist/svc-fork-server'), 'stale');
    const r = build(dir, { CC: '/nonexistent/cc' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/build-native: no native fork server \(steps are spawned from Node\): \/nonexistent\/cc: .*ENOENT/);
    expect(existsSync(join(dir, 'dist/svc-fork-server'))).toBe(false);
    expect(build(dir, { CC: '/nonexistent/cc', CI: 'true' }).status).toBe(1);
  });

  (hasCc ? test : test.skip)('a source that does not compile is reported with the compiler\'s message', () => {
    const dir = copy();
    writeFileSync(join(dir, SOURCE), 'int main(void) { return missing; }\n');
    const r = build(dir, {});
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/build-native: no native fork server .*missing/s);
    expect(existsSync(join(dir, 'dist/svc-fork-server'))).toBe(false);
  });
});
