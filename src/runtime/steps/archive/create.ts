/**
 * `create`: the source file or directory into the destination archive, written atomically (a temp file
 * beside it, renamed over it: an existing archive is replaced whole, never half-written). With
 * verifyIntegrity the new archive is read back in full before the rename. Prints one JSON object:
 * operation, source, destination, format, filesAdded, bytesArchived, duration, verifyPerformed.
 */
import { createWriteStream } from 'node:fs';
import { basename, dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { StepError, type StepIO } from '../runner.js';
import { formatToCreate } from './format.js';
import { fsReason, writeAtomically } from './fs-safe.js';
import { damaged, verify } from './read.js';
import { printJson, since } from './report.js';
import type { ArchiveSettings, Place } from './settings.js';
import { statSource } from './source.js';
import { archiveStream } from './write.js';
import { collect } from './walk.js';

/** The archive itself and its temp files, when the destination lies inside the source. */
const isOwnOutput = (dest: string) => (path: string): boolean =>
  path === dest || (dirname(path) === dirname(dest) && basename(path).startsWith(`.${basename(dest)}.`) && path.endsWith('.tmp'));

export async function createArchive(s: ArchiveSettings, dest: Place, io: StepIO, signal: AbortSignal): Promise<void> {
  const start = performance.now();
  const format = formatToCreate(s.format, dest.path);
  const st = await statSource(s.source);
  const items = await collect(s.source.path, st, { include: s.include, exclude: s.exclude, skip: isOwnOutput(dest.path) });
  try {
    await writeAtomically(dest.path, async (tmp) => {
      await pipeline(archiveStream(format, items, s.source.path), createWriteStream(tmp), { signal });
      if (s.verifyIntegrity) await verify(tmp, format, signal).catch((e: unknown) => { throw damaged(e, dest.name, format, signal); });
    });
  } catch (e) {
    if (signal.aborted || e instanceof StepError) throw e;
    throw new StepError(`archive step: cannot write ${dest.name}: ${fsReason(e)}`);
  }
  const files = items.filter((i) => i.type !== 'dir');
  printJson(io, {
    operation: 'create', source: s.source.name, destination: dest.name, format,
    filesAdded: files.length, bytesArchived: files.reduce((n, i) => n + i.size, 0),
    duration: since(start), verifyPerformed: s.verifyIntegrity,
  });
}
