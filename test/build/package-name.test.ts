/**
 * The CLI's package (issue 20): `npx svc` outside a checkout resolved to an unrelated registry package
 * named `svc`. Ours is scoped, still installs the `svc` command, and the README says how to get it.
 */
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { name: string; bin: Record<string, string> };
const lock = JSON.parse(readFileSync(`${ROOT}package-lock.json`, 'utf8')) as { name: string };

test('a scoped package name (in the lock file too) that installs the svc command', () => {
  expect(pkg.name).toBe('@svc-io/svc');
  expect(lock.name).toBe(pkg.name);
  expect(pkg.bin).toEqual({ svc: 'bin/svc.js' });
});

test('the README says how to have svc on the PATH', () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  expect(readme).toContain('npm install --global .');
  expect(readme).toContain('@svc-io/svc');
});
