/** Small helpers of LocalRunStore: directory reads, bounded parallelism. */
import { lstat, readdir } from 'node:fs/promises';
import { isNotFound } from '../../fs/atomic.js';

export function safe(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
}

export async function readdirSafe(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

export async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

/** When a file was last written (ms since the epoch); Infinity when it is missing (never older than anything). */
export async function writtenAt(path: string): Promise<number> {
  try {
    return (await lstat(path)).mtimeMs; // a link's own time: what it points at is never looked at
  } catch (err) {
    if (isNotFound(err)) return Infinity;
    throw err;
  }
}
