#!/usr/bin/env node
// Compiles the native fork server (src/runtime/shell/fork-server.c, ADR 0008) to dist/svc-fork-server.
// Without a C compiler ($CC, else cc) the build says so and leaves none: the engine then spawns steps from
// Node, slower but the same. Under CI=true a missing or failing compiler fails the build.
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = join(ROOT, 'src/runtime/shell/fork-server.c');
const OUT = join(ROOT, 'dist/svc-fork-server');
const cc = process.env.CC || 'cc';

mkdirSync(dirname(OUT), { recursive: true });
rmSync(OUT, { force: true });
const tmp = `${OUT}.${process.pid}.tmp`;
const r = spawnSync(cc, ['-std=c11', '-O2', '-Wall', '-Wextra', '-o', tmp, SOURCE], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
if (r.status === 0) {
  if (r.stderr) process.stderr.write(r.stderr);
  renameSync(tmp, OUT);
} else {
  rmSync(tmp, { force: true });
  const why = r.error ? `${cc}: ${r.error.message}` : r.stderr.trim();
  const msg = `build-native: no native fork server (steps are spawned from Node): ${why}`;
  if (process.env.CI === 'true') { console.error(msg); process.exit(1); }
  console.warn(msg);
}
