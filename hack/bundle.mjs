#!/usr/bin/env node
// Bundles the short CLI commands (start, status, validate, ...) into one CommonJS file, dist/svc-cli.cjs,
// so a `svc start` does not pay for resolving and loading ~300 modules one by one, then records V8's
// code cache of it after one representative run, so it does not pay for compiling them either
// (ADR 0005). `svc server` keeps the unbundled tree (bin/svc.js chooses). Run after tsc: the input is dist/.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, 'dist/svc-cli.cache');
rmSync(join(ROOT, 'dist/svc-cli.mjs'), { force: true }); // the ES module bundle of earlier builds
rmSync(CACHE, { force: true });
await build({
  entryPoints: [join(ROOT, 'dist/cli/main.js')],
  outfile: join(ROOT, 'dist/svc-cli.cjs'),
  bundle: true, platform: 'node', format: 'cjs', target: 'node24', logLevel: 'warning',
  // Whitespace and syntax only (names stay, for stack traces): 1.2 MB -> 0.74 MB, less to read, hash and
  // deserialize on every start (ADR 0005).
  minifyWhitespace: true, minifySyntax: true,
  // The first line ties a code cache to this very build (bin/svc.js). import.meta.url is the bundle's
  // own URL, as it would be for an ES module at that place (src/runtime/shell/native.ts finds dist/ by it).
  // (The directive first: a statement before esbuild's own would end strict mode.)
  banner: { js: `// svc-cli build ${randomUUID()}\n'use strict';var __svcBundleUrl = require('node:url').pathToFileURL(__filename).href;` },
  define: { 'import.meta.url': '__svcBundleUrl' },
  // The server command is never reached through the bundle (bin/svc.js loads dist/cli/main.js for it).
  external: ['./server.js', 'ssh2', 'openai', '@anthropic-ai/sdk', '@google/genai'],
});

// One run that goes through loading, validation, variables, outputs and the engine, in a scratch dir.
const WARM = `name: warm-up
params: "GREETING=hello"
env:
  - TARGET: world
steps:
  - name: greet
    command: echo "\${GREETING} \${TARGET}"
    output: MESSAGE
  - name: check
    command: test -n "$MESSAGE"
    depends: greet
    preconditions:
      - condition: "\${MESSAGE}"
        expected: "re:hello"
`;
const dir = mkdtempSync(join(tmpdir(), 'svc-code-cache-'));
try {
  writeFileSync(join(dir, 'warm-up.yaml'), WARM);
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/svc.js'), 'start', join(dir, 'warm-up.yaml')], {
    env: { ...process.env, SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dir, SVC_CODE_CACHE_OUT: CACHE }, encoding: 'utf8',
  });
  // Without a cache the CLI only starts slower: say so, do not fail the build.
  if (r.status !== 0) console.warn(`bundle: no code cache (warm-up run exited ${r.status}): ${r.stderr || r.stdout}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
