#!/usr/bin/env node
// `svc server` loads the module tree (express, the API); every other command loads one bundled file,
// dist/svc-cli.mjs, which starts several times faster (ADR 0005). The bundle is used only when it is at
// least as new as the tree it was made from: after a bare `tsc` (no bundle step) the tree runs.
import { statSync } from 'node:fs';

const mtime = (url) => { try { return statSync(url).mtimeMs; } catch { return -1; } };
const bundle = new URL('../dist/svc-cli.mjs', import.meta.url);
const tree = new URL('../dist/cli/main.js', import.meta.url);
const useBundle = process.argv[2] !== 'server' && mtime(bundle) >= mtime(tree);
const { main } = await import((useBundle ? bundle : tree).href);

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : String(err)); process.exitCode = 2; },
);
