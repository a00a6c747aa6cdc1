/**
 * ATTACK (the log store): a probe that reads a `file` secret writes its output to the log store (a shared
 * volume, a bucket). The entry binary seals it there (src/entry/seal.go); the operator's launcher opens it
 * (src/adapters/launcher/pod/seal.ts): the two must agree, and the stored file must not hold the value.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { Sealer, unseal } from '../../src/adapters/launcher/pod/seal.js';

const ENTRY = join(ROOT, 'dist/image/usr/local/bin/svc-entry');
if (!existsSync(ENTRY) && process.env.CI === 'true') throw new Error(`no step entry binary at ${ENTRY}: run npm run build`);
const maybe = existsSync(ENTRY) ? describe : describe.skip;
if (!existsSync(ENTRY)) console.warn(`!!! SKIPPING the entry seal tests: no ${ENTRY} (npm run build needs Go)`);

maybe('svc-entry --seal-env', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the stored stdout is sealed; the launcher opens it to the exact text', () => {
    const key = new Sealer().keyFor('probe-1');
    const secret = 'file-secret "quoted" \\ and\nnewline';
    const out = join(dir, 'out');
    const r = spawnSync(ENTRY, ['run', '--stdout', out, '--stderr', join(dir, 'err'), '--result', join(dir, 'r.json'), '--quiet', '--seal-env', 'SVC_SEAL', '--commands-env', 'SVC_COMMANDS'], {
      env: { PATH: process.env.PATH, SVC_SEAL: key, SVC_COMMANDS: JSON.stringify([['printf', '%s', secret]]) }, encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const stored = readFileSync(out, 'utf8');
    for (const part of ['file-secret', 'quoted', 'newline']) expect(stored).not.toContain(part);
    expect(unseal(stored, key)).toBe(secret);
    expect(() => unseal(stored, new Sealer().keyFor('probe-1'))).toThrow();
  });
});
