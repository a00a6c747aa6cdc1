#!/usr/bin/env node
// Builds or serves the web UI (src/ui) with Vite. The Vite configuration lives here rather than in a
// vite.config.ts beside the UI, so the UI's own tsconfig stays browser-only (no Node types).
//
//   node hack/ui.mjs build   type-check src/ui, then bundle it into dist/ui (what `npm run build` runs)
//   node hack/ui.mjs dev     Vite's dev server on http://127.0.0.1:5173, proxying /api to `svc server`
//                            (SVC_API_URL, default http://127.0.0.1:8080)
//   node hack/ui.mjs size    the gzip size of every file of dist/ui/assets, and the total (docs/ui.md)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const UI_SRC = join(ROOT, 'src/ui');
export const UI_OUT = join(ROOT, 'dist/ui');

/** The Vite configuration of the UI (inline: no config file is read). */
export function config(mode) {
  return {
    configFile: false,
    root: UI_SRC,
    base: '/',
    mode,
    logLevel: 'warn',
    clearScreen: false,
    // JSX without React in scope (the UI's tsconfig says the same: "jsx": "react-jsx").
    oxc: { jsx: { runtime: 'automatic' } },
    build: {
      outDir: UI_OUT,
      emptyOutDir: true,
      target: 'es2022',
      // Hashed file names under assets/: the server gives them a year-long immutable cache.
      assetsDir: 'assets',
      chunkSizeWarningLimit: 1024,
      rolldownOptions: {
        // React libraries mark modules "use client" for server components; meaningless in this SPA.
        onwarn(w, warn) {
          if (w.code !== 'MODULE_LEVEL_DIRECTIVE') warn(w);
        },
      },
    },
    server: {
      host: '127.0.0.1',
      port: 5173,
      // ws: the web terminal's WebSocket; the Origin stays the dev server's, which is the Host it sees.
      proxy: { '/api': { target: process.env.SVC_API_URL ?? 'http://127.0.0.1:8080', changeOrigin: false, ws: true } },
    },
  };
}

function typecheck() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(UI_SRC, 'tsconfig.json')], { stdio: 'inherit' });
}

/** [file, bytes, gzip bytes] of every asset, largest first. */
export function sizes(dir = join(UI_OUT, 'assets')) {
  return readdirSync(dir)
    .map((f) => {
      const b = readFileSync(join(dir, f));
      return [f, b.length, gzipSync(b, { level: 9 }).length];
    })
    .sort((a, b) => b[2] - a[2]);
}

async function main(cmd) {
  const vite = await import('vite');
  if (cmd === 'build') {
    typecheck();
    await vite.build(config('production'));
  } else if (cmd === 'dev') {
    const server = await vite.createServer(config('development'));
    await server.listen();
    server.printUrls();
  } else if (cmd === 'size') {
    const rows = sizes();
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    for (const [f, raw, gz] of rows) console.log(`${f.padEnd(40)} ${kib(raw).padStart(10)} ${kib(gz).padStart(10)} gzip`);
    const total = rows.reduce((s, r) => [s[0] + r[1], s[1] + r[2]], [0, 0]);
    console.log(`${'total'.padEnd(40)} ${kib(total[0]).padStart(10)} ${kib(total[1]).padStart(10)} gzip`);
  } else {
    console.error('usage: node hack/ui.mjs build|dev|size');
    process.exit(2);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv[2]);
