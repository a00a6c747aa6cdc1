#!/usr/bin/env node
// Builds the step entry binary (src/entry, Go, standard library only; ADR 0013) into dist/image, laid out
// as the svc image holds it: dist/image/usr/local/bin/svc-entry. Static (CGO off), so it runs in any
// image. Without Go the build says so and leaves none (the operator then cannot run steps); under
// CI=true a missing or failing Go fails the build.
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/image/usr/local/bin/svc-entry');
const go = process.env.GO || 'go';

mkdirSync(dirname(OUT), { recursive: true });
const tmp = `${OUT}.${process.pid}.tmp`;
const r = spawnSync(go, ['build', '-trimpath', '-ldflags=-s -w', '-o', tmp, '.'], {
  cwd: join(ROOT, 'src/entry'), stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8',
  env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod', GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'local' },
});
if (r.status === 0) {
  renameSync(tmp, OUT);
} else {
  rmSync(tmp, { force: true });
  const why = r.error ? `${go}: ${r.error.message}` : r.stderr.trim();
  const msg = `build-entry: no step entry binary (the operator cannot run steps): ${why}`;
  if (process.env.CI === 'true') { console.error(msg); process.exit(1); }
  console.warn(msg);
}
