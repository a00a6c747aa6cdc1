#!/usr/bin/env node
// `svc server` loads the module tree (express, the API); every other command loads one bundled file,
// dist/svc-cli.mjs, which starts several times faster (ADR 0005). Without the bundle (only tsc was run)
// everything uses the tree.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/svc-cli.mjs', import.meta.url);
const entry = process.argv[2] !== 'server' && existsSync(bundle) ? bundle.href : new URL('../dist/cli/main.js', import.meta.url).href;
const { main } = await import(entry);

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exitCode = 2; },
);
