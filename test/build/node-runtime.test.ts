/**
 * ADR 0009: the npm scripts run on Node 24 from the platform package the project pins
 * (optionalDependencies node-<platform>-<arch>, whose `node` npm links into node_modules/.bin), whatever
 * node the system has; bin/svc.js refuses an older Node run by hand.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { BIN, ROOT } from '../helpers/cli.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
/** The Node version pinned for this platform, if the project pins one for it. */
const pinned = pkg.optionalDependencies?.[`node-${process.platform}-${process.arch}`];
const major = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);
/** PATH as a shell outside npm sees it: without the node_modules/.bin directories npm puts first. */
const systemPath = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes('node_modules')).join(delimiter);

/** The first `node` on the system PATH, when it is older than 24 (the machine's Node 20, say). */
function olderSystemNode(): string | undefined {
  const r = spawnSync('node', ['-p', 'process.execPath + " " + process.version'], { encoding: 'utf8', env: { PATH: systemPath } });
  const [path, version] = r.status === 0 ? r.stdout.trim().split(' ') : [];
  return path && version && major(version) < 24 ? path : undefined;
}

describe('the Node runtime (ADR 0009)', () => {
  test('the tests run on Node 24 or later, the pinned version where the project pins one', () => {
    expect(major(process.version)).toBeGreaterThanOrEqual(24);
    if (pinned) expect(process.version).toBe(`v${pinned}`);
  });

  test('`node` in npm scripts is the pinned one, whatever node the system PATH has', () => {
    if (!pinned) return console.warn(`!!! SKIPPING: no Node pinned for ${process.platform}-${process.arch} (the system's must be 24+)`);
    // npm itself runs on the system's node here, as it would on a fresh machine.
    const r = spawnSync('npm', ['exec', '--', 'node', '-p', 'process.version'], { cwd: ROOT, encoding: 'utf8', env: { PATH: systemPath, HOME: process.env.HOME } });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(`v${pinned}`);
  });

  test('bin/svc.js run by hand on a Node older than 24 refuses, and says how to run it', () => {
    const old = olderSystemNode();
    if (!old) return console.warn('!!! SKIPPING: no Node older than 24 on the system PATH');
    const r = spawnSync(old, [BIN, 'validate', join(ROOT, 'examples/hello.yaml')], { encoding: 'utf8', env: { PATH: systemPath } });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc needs Node 24 or later, not v\d+\.\d+\.\d+ .*run it through npm/);
  });
});
