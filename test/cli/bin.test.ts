/**
 * bin/svc.js (ADR 0005): the bundle when it is not older than the tree, the tree otherwise and for
 * `server`; V8's code cache only when it was made from this very bundle. Each case runs on a copy of
 * bin/ and dist/ so the real build is never touched.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';

function install(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bin-'));
  for (const d of ['bin', 'dist']) cpSync(join(ROOT, d), join(dir, d), { recursive: true, preserveTimestamps: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'ok.yaml'), 'steps:\n  - name: a\n    command: "true"\n');
  return dir;
}

const svc = (dir: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(dir, 'bin/svc.js'), ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: join(dir, 'data'), ...env } });

/** Replaces the bundle by one that says it ran, keeping its first (build id) line. */
function markBundle(dir: string): void {
  const bundle = join(dir, 'dist/svc-cli.cjs');
  const first = readFileSync(bundle, 'utf8').split('\n')[0];
  writeFileSync(bundle, `${first}\nexports.main = async () => { process.stdout.write('bundle ran\\n'); return 0; };\n`);
}

describe('bin/svc.js', () => {
  test('the build leaves a bundle whose first line names its build, and a code cache made from it', () => {
    const bundle = readFileSync(join(ROOT, 'dist/svc-cli.cjs'), 'utf8');
    const id = bundle.split('\n')[0]!;
    expect(id).toMatch(/^\/\/ svc-cli build [0-9a-f-]{36}$/);
    const cache = readFileSync(join(ROOT, 'dist/svc-cli.cache'));
    expect(cache.subarray(0, id.length + 1).toString('latin1')).toBe(`${id}\n`);
    expect(cache.length).toBeGreaterThan(100_000);
    // Made under the flags bin/svc.js runs with, so V8 takes it (it checks its version and flags).
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/svc.js'), 'validate', join(ROOT, 'examples/hello.yaml')], { encoding: 'utf8', env: { ...process.env, SVC_DEBUG_CODE_CACHE: '1' } });
    expect(r.stderr).toContain('code cache: accepted');
  });

  test('the bundle runs when it is at least as new as the tree; an older one is passed over for the tree', () => {
    const dir = install();
    markBundle(dir);
    expect(svc(dir, ['validate', 'ok.yaml']).stdout).toBe('bundle ran\n');
    // Older than the tree it was made from (however long ago the build ran).
    const old = new Date(statSync(join(dir, 'dist/cli/main.js')).mtimeMs - 3_600_000);
    utimesSync(join(dir, 'dist/svc-cli.cjs'), old, old);
    const r = svc(dir, ['validate', 'ok.yaml']);
    expect(r.stdout).toMatch(/ok\.yaml: valid/);
  });

  test('a code cache that is corrupt or from another build is ignored: the command still runs', () => {
    const dir = install();
    const cache = join(dir, 'dist/svc-cli.cache');
    const id = readFileSync(join(dir, 'dist/svc-cli.cjs'), 'utf8').split('\n')[0];
    writeFileSync(cache, Buffer.concat([Buffer.from(`${id}\n`), Buffer.from('not a V8 code cache'.repeat(100))]));
    expect(svc(dir, ['validate', 'ok.yaml']).stdout).toMatch(/valid/);
    const good = readFileSync(join(ROOT, 'dist/svc-cli.cache'));
    writeFileSync(cache, Buffer.concat([Buffer.from('// svc-cli build 00000000-0000-0000-0000-000000000000\n'), good.subarray(good.indexOf(10) + 1)]));
    const r = svc(dir, ['start', 'ok.yaml']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/succeeded/);
  });

  test('a cache made from another bundle of the same length is not used (V8 itself would accept it)', () => {
    const dir = install();
    const bundle = join(dir, 'dist/svc-cli.cjs');
    const body = (word: string) => `exports.main = async () => { process.stdout.write('${word}\\n'); return 0; };\n`;
    writeFileSync(bundle, `// svc-cli build 11111111-1111-1111-1111-111111111111\n${body('first')}`);
    expect(svc(dir, ['validate', 'ok.yaml'], { SVC_CODE_CACHE_OUT: join(dir, 'dist/svc-cli.cache') }).stdout).toBe('first\n');
    writeFileSync(bundle, `// svc-cli build 22222222-2222-2222-2222-222222222222\n${body('other')}`);
    expect(svc(dir, ['validate', 'ok.yaml']).stdout).toBe('other\n');
  });

  test('SVC_CODE_CACHE_OUT (the build step) writes the cache of the bundle that ran, tagged with its build', () => {
    const dir = install();
    const out = join(dir, 'fresh.cache');
    expect(svc(dir, ['validate', 'ok.yaml'], { SVC_CODE_CACHE_OUT: out }).status).toBe(0);
    const id = readFileSync(join(dir, 'dist/svc-cli.cjs'), 'utf8').split('\n')[0];
    const cache = readFileSync(out);
    expect(cache.subarray(0, id!.length + 1).toString('latin1')).toBe(`${id}\n`);
    expect(cache.length).toBeGreaterThan(100_000);
  });
  test('no build to run (dist/ missing or partial): a sentence saying what is missing and what to run, exit 2', () => {
    const dir = install();
    rmSync(join(dir, 'dist/svc-cli.cjs'));
    rmSync(join(dir, 'dist/cli/args.js')); // the tree runs, and misses a module
    const partial = svc(dir, ['validate', 'ok.yaml']);
    expect(partial.status).toBe(2);
    expect(partial.stderr).toBe(`svc is not built or not installed: ${join(dir, 'dist/cli/args.js')} is missing (run npm install in ${dir}: it builds dist/)\n`);
    rmSync(join(dir, 'dist'), { recursive: true });
    const none = svc(dir, ['validate', 'ok.yaml']);
    expect([none.status, none.stderr]).toEqual([2, `svc is not built or not installed: ${join(dir, 'dist/svc-cli.cjs')} is missing (run npm install in ${dir}: it builds dist/)\n`]);
  });
  test('steps start from the native fork server the build made (ADR 0008), from the bundle and from the tree', () => {
    const dir = install();
    if (!existsSync(join(dir, 'dist/svc-fork-server'))) {
      if (process.env.CI === 'true') throw new Error('no dist/svc-fork-server under CI=true (npm run build with a C compiler)');
      console.warn('!!! SKIPPING: no native fork server built (no C compiler)');
      return;
    }
    writeFileSync(join(dir, 'who.yaml'), 'steps:\n  - name: a\n    command: cat /proc/$PPID/comm > helper.txt\n');
    expect(svc(dir, ['start', 'who.yaml']).status).toBe(0);
    expect(readFileSync(join(dir, 'helper.txt'), 'utf8')).toBe('svc-fork-server\n');
    const old = new Date(statSync(join(dir, 'dist/cli/main.js')).mtimeMs - 3_600_000);
    utimesSync(join(dir, 'dist/svc-cli.cjs'), old, old);
    writeFileSync(join(dir, 'helper.txt'), '');
    expect(svc(dir, ['start', 'who.yaml']).status).toBe(0);
    expect(readFileSync(join(dir, 'helper.txt'), 'utf8')).toBe('svc-fork-server\n');
  });
  test('the Node built-ins a command loads are loaded before the optimising compiler is turned off (their code cache needs the default flags)', () => {
    const dir = install();
    const hook = join(dir, 'hook.cjs');
    // Which built-ins load after v8.setFlagsFromString, written when the process exits.
    writeFileSync(hook, `const v8 = require('node:v8'); const set = v8.setFlagsFromString; let at = -1;
v8.setFlagsFromString = (f) => { at = process.moduleLoadList.length; return set.call(v8, f); };
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'late.txt'))}, at < 0 ? 'flags never set' : process.moduleLoadList.slice(at).filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join('\\n')));`);
    const r = spawnSync(process.execPath, ['-r', hook, join(dir, 'bin/svc.js'), 'start', 'ok.yaml'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: join(dir, 'data') } });
    expect(r.status).toBe(0);
    const late = readFileSync(join(dir, 'late.txt'), 'utf8').split('\n').filter(Boolean);
    // What a run only loads for its output (a file or a terminal) may come later; nothing sizeable may.
    expect(late.filter((m) => !/^(process|tty|internal\/tty|internal\/fs\/sync_write_stream)$/.test(m))).toEqual([]);
  });
});
