/**
 * The step entry binary's own Go tests (src/entry/*_test.go: its masker against the shared cases of
 * test/fixtures/masking-cases.json, which the engine's masker runs too). CI runs jest, not `go test`:
 * this runs them. Without Go it skips loudly; under CI=true (which installs Go) it fails.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { describeWith } from '../helpers/needs.js';

const go = process.env.GO || 'go';
const found = spawnSync(go, ['version'], { encoding: 'utf8' });
const missing = found.status === 0 ? undefined : `no Go toolchain (${go}): the entry binary's tests need it`;

describeWith('go', missing, 'svc-entry Go tests', () => {
  it('pass (go test in src/entry)', () => {
    const r = spawnSync(go, ['test', '-count=1', './...'], {
      cwd: join(ROOT, 'src/entry'), encoding: 'utf8', timeout: 240_000,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod', GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'local' },
    });
    if (r.status !== 0) throw new Error(`go test failed:\n${r.stdout}\n${r.stderr}`);
    expect(r.stdout).toMatch(/^ok\s/m);
  }, 300_000);
});
