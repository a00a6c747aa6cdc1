/**
 * The creation order of a DAG's runs, kept beside them so that the newest runs are found without
 * opening every run's spec.json (`svc status <dag>`, GET .../latest, any list with a limit): one empty
 * file per run in `<dagDir>/.order` (a name no run id can take), named `<creationTimestamp>_<dagRunId>`,
 * the timestamp in the fixed-width ISO form the store writes, so names sort by creation.
 *
 * It is a cache of what the spec files say, never the truth:
 * - a listing starts from the run directories, so an entry whose run is gone is never consulted;
 * - a run without an entry (made by an older version, or by a process that died between its spec and
 *   its entry) has its spec read as before, and its entry is added then;
 * - a run id with two entries (deleted, then created again by a process that died before removing the
 *   old one) is read the same way, and its entries are replaced by the right one.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, readdirOrEmpty } from '../../fs/atomic.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TS_LENGTH = 24;

/** Run id -> creation time, or null when the index holds two different ones for it. */
export type OrderIndex = Map<string, string | null>;

function entryOf(name: string): { at: string; id: string } | undefined {
  if (name.length <= TS_LENGTH + 1 || name[TS_LENGTH] !== '_') return undefined;
  const at = name.slice(0, TS_LENGTH);
  return ISO.test(at) ? { at, id: name.slice(TS_LENGTH + 1) } : undefined;
}

export async function readOrder(dir: string): Promise<OrderIndex> {
  const index: OrderIndex = new Map();
  for (const name of await readdirOrEmpty(dir)) {
    const e = entryOf(name);
    if (e) index.set(e.id, index.has(e.id) && index.get(e.id) !== e.at ? null : e.at);
  }
  return index;
}

/**
 * Records a run's creation time (synchronously: two system calls on the path of every run's start).
 * Best effort: a time not in the ISO form, or a failure, leaves the run to be read the slow way.
 */
export function addOrder(dir: string, createdAt: string, dagRunId: string): void {
  if (!ISO.test(createdAt)) return;
  const file = join(dir, `${createdAt}_${dagRunId}`);
  try {
    closeSync(openSync(file, 'w'));
  } catch (err) {
    if (!isNotFound(err)) return;
    try {
      mkdirSync(dir, { recursive: true });
      closeSync(openSync(file, 'w'));
    } catch { /* read the slow way */ }
  }
}

/** Removes a run's entry: the one of its creation time when known, else every entry of the run id (best effort). */
export async function removeOrder(dir: string, dagRunId: string, createdAt?: string): Promise<void> {
  if (createdAt !== undefined && ISO.test(createdAt)) {
    await unlink(join(dir, `${createdAt}_${dagRunId}`)).catch(() => undefined);
    return;
  }
  const mine = (await readdirOrEmpty(dir).catch(() => [])).filter((n) => entryOf(n)?.id === dagRunId);
  await Promise.all(mine.map((n) => unlink(join(dir, n)).catch(() => undefined)));
}
