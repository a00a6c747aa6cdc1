/**
 * RunEvents on local disk: inotify (fs.watch) on the run's directory, for the `stop` marker, and on its
 * `controls/` directory, for control requests. Both are written atomically (a rename into place), so one
 * event arrives per request, whichever process wrote it. The driver's own status writes in the same
 * directory are not wake-ups (filtered by name). Where no notification can be had (the user's inotify
 * instances used up: EMFILE, or its watches: ENOSPC; a watcher that fails later), the run is woken every
 * FALLBACK_MS instead, to look for itself.
 */
import { watch, mkdirSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { RunEvents } from '../../../core/ports/run-events.js';
import type { RunKey } from '../../../core/ports/run-store.js';
import { CONTROLS_DIR } from './controls.js';
import { Layout, STOP_FILE } from './paths.js';

const FALLBACK_MS = 500;

type Watch = (path: string, opts: { persistent: boolean }, listener: (event: string, name: string | null) => void) => FSWatcher;

export class LocalRunEvents implements RunEvents {
  private readonly layout: Layout;
  private readonly watchFn: Watch;

  /** `watch`: fs.watch (replaceable to test the fallback). */
  constructor(opts: { dataDir: string; watch?: Watch }) {
    this.layout = new Layout(opts.dataDir);
    this.watchFn = opts.watch ?? (watch as Watch);
  }

  watch(key: RunKey, wake: () => void): () => void {
    const dir = this.layout.runPaths(key).dir;
    const watchers: FSWatcher[] = [];
    let fallback: NodeJS.Timeout | undefined;
    // Not watchable (no inotify instance or watch left, the run is gone): look periodically instead.
    const poll = (): void => { fallback ??= setInterval(wake, FALLBACK_MS).unref(); };
    const add = (path: string, relevant: (name: string | null) => boolean): void => {
      try {
        const w = this.watchFn(path, { persistent: false }, (_event, name) => { if (relevant(name)) wake(); });
        w.on('error', () => { w.close(); poll(); });
        watchers.push(w);
      } catch {
        poll();
      }
    };
    add(dir, (name) => name === STOP_FILE || name === null);
    try { mkdirSync(join(dir, CONTROLS_DIR), { recursive: true }); } catch { /* add() falls back */ }
    add(join(dir, CONTROLS_DIR), () => true);
    return () => {
      for (const w of watchers) w.close();
      if (fallback) clearInterval(fallback);
    };
  }
}
