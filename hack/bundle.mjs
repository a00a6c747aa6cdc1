#!/usr/bin/env node
// Bundles the short CLI commands (start, status, validate, ...) into one file, dist/svc-cli.mjs, so a
// `svc start` does not pay for resolving and loading ~300 modules one by one (ADR 0005). `svc server`
// keeps the unbundled tree (bin/svc.js chooses). Run after tsc: the input is dist/.
import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
await build({
  entryPoints: [join(ROOT, 'dist/cli/main.js')],
  outfile: join(ROOT, 'dist/svc-cli.mjs'),
  bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning',
  // The server command is never reached through the bundle (bin/svc.js loads dist/cli/main.js for it).
  external: ['./server.js'],
  // CommonJS dependencies (yaml, cron-parser) call require() for Node built-ins.
  banner: { js: "import { createRequire as __svcRequire } from 'node:module'; const require = __svcRequire(import.meta.url);" },
});
