#!/usr/bin/env node
// `svc server` loads the module tree (express, the API); every other command runs one bundled file,
// dist/svc-cli.cjs, which starts several times faster (ADR 0005), compiled from V8's code cache when the
// build left one for this very bundle. The bundle is used only when it is at least as new as the tree it
// was made from: after a bare `tsc` (no bundle step) the tree runs. CommonJS (bin/package.json): an ES
// module entry would set up the ES module loader first.
'use strict';
// package.json engines: Node 24+. Through npm (npm start, npx svc, the scripts) `node` is the one the project
// pins (ADR 0009), whatever the system's is; an older one run by hand is refused rather than run untested.
if (Number(process.versions.node.split('.')[0]) < 24) {
  process.stderr.write(`svc needs Node 24 or later, not ${process.version} (${process.execPath}): run it through npm `
    + '(npx svc ..., npm start), which uses the Node the project pins, or put Node 24 first on PATH\n');
  process.exit(2);
}
const { readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

// A CLI command is short-lived or spends its time waiting on its steps: V8's optimising compiler costs
// more CPU on its threads than it saves (the 100-step chain: -7 % CPU, equal on a 2,000-step fan-out;
// ADR 0005). Set before the bundle is compiled, so its code cache is made and used under the same flags;
// but after the Node built-ins every command loads are: node's own code cache of them is accepted only
// under the default flags, and compiling them instead cost ~6 ms a start (child_process, fs/promises).
if (process.argv[2] !== 'server') {
  // sqlite: the run index (ADR 0016), opened by every command that writes or lists runs.
  for (const m of ['os', 'crypto', 'fs/promises', 'child_process', 'perf_hooks', 'sqlite']) require(`node:${m}`);
  void require('node:util').parseArgs; // the command line's parser (a lazily loaded built-in)
  require('node:v8').setFlagsFromString('--no-opt');
}

const DIST = join(__dirname, '..', 'dist');
const BUNDLE = join(DIST, 'svc-cli.cjs');
const CACHE = join(DIST, 'svc-cli.cache');
const TREE = join(DIST, 'cli', 'main.js');

const mtime = (path) => { try { return statSync(path).mtimeMs; } catch { return -1; } };

/**
 * The bundle's first line names its build; the cache file starts with the same line. V8 checks a
 * cache against its own version and flags and the source's length only, so the build id is what ties
 * a cache to the bundle it was made from.
 */
function loadBundle() {
  const source = readFileSync(BUNDLE, 'utf8');
  const id = source.slice(0, source.indexOf('\n') + 1);
  let cachedData;
  try {
    const cache = readFileSync(CACHE);
    if (id.length > 1 && cache.subarray(0, id.length).toString('latin1') === id) cachedData = cache.subarray(id.length);
  } catch { /* no cache: compile */ }
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    // import() from the bundle (only `server`, which never runs from it) needs Node >= 20.12 for this constant.
    filename: BUNDLE, cachedData, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const mod = { exports: {} };
  // Diagnostics (and the test that the build's cache is one this process accepts: V8 rejects a cache made under other flags).
  if (process.env.SVC_DEBUG_CODE_CACHE) process.stderr.write(`code cache: ${!cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'accepted'}\n`);
  script.runInThisContext()(mod.exports, require, mod, BUNDLE, dirname(BUNDLE));
  return { main: mod.exports.main, saveCache: () => saveCache(id, script) };
}

/** Build step only (hack/bundle.mjs sets SVC_CODE_CACHE_OUT): the cache, after a run compiled the common paths. */
function saveCache(id, script) {
  const out = process.env.SVC_CODE_CACHE_OUT;
  if (!out) return;
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([Buffer.from(id, 'latin1'), script.createCachedData()]));
  renameSync(tmp, out);
}

async function load() {
  if (process.argv[2] !== 'server' && mtime(BUNDLE) >= mtime(TREE)) return loadBundle();
  return { main: (await import(pathToFileURL(TREE).href)).main, saveCache: () => undefined };
}

/**
 * No build to load (a checkout where `npm install` did not run, a dist/ removed or half-copied): a sentence
 * saying so, not Node's ENOENT or "Cannot find module".
 */
function notBuilt(err) {
  if (!err || (err.code !== 'ENOENT' && err.code !== 'ERR_MODULE_NOT_FOUND')) throw err;
  const missing = err.path ?? /'([^']+)'/.exec(err.message)?.[1] ?? DIST;
  process.stderr.write(`svc is not built or not installed: ${missing} is missing (run npm install in ${dirname(DIST)}: it builds dist/)\n`);
  process.exit(2);
}

// main() turns the errors it knows into sentences (src/cli/system-error.ts); what is left is printed as is.
load().catch(notBuilt).then(({ main, saveCache: save }) => main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  save();
})).catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 2;
});
