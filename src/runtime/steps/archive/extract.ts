/**
 * `extract`: the archive's entries into the destination directory (default: the working directory),
 * after stripComponents and the include/exclude filters. An entry whose name or link leads outside the
 * destination fails the step, naming the entry. With verifyIntegrity the whole archive is read first
 * (every checksum, every name checked) so a damaged or hostile archive writes nothing at all; without it,
 * damage is still detected but entries before the damaged one stay written. Prints one JSON object:
 * operation, source, destination, format, filesExtracted, bytesExtracted, filesSkipped, duration,
 * verifyPerformed.
 */
import { mkdir, realpath } from 'node:fs/promises';
import { StepError, type StepIO } from '../runner.js';
import { entrySegments, selected } from './entry-path.js';
import type { ArchiveEntry } from './entry.js';
import { hardlinkSegments, writeEntry, type Destination } from './extract-write.js';
import { fsReason } from './fs-safe.js';
import { formatToRead } from './format.js';
import { damaged, readArchive, verify } from './read.js';
import { printJson, since } from './report.js';
import type { ArchiveSettings, Place } from './settings.js';
import { requireArchiveFile } from './source.js';

/** Where an entry goes (its segments after stripping), or undefined when it is left out. Throws for an unsafe name. */
function planned(e: ArchiveEntry, s: ArchiveSettings): string[] | undefined {
  const segments = entrySegments(e.name).slice(s.stripComponents);
  if (segments.length === 0 || e.type === 'other') return undefined;
  if (e.type === 'hardlink') hardlinkSegments(e);
  return selected(segments.join('/'), s.include, s.exclude) ? segments : undefined;
}

async function destinationRoot(dest: Place): Promise<string> {
  try {
    await mkdir(dest.path, { recursive: true });
    return await realpath(dest.path);
  } catch (e) {
    throw new StepError(`archive step: cannot create the destination ${dest.name}: ${fsReason(e)}`);
  }
}

export async function extractArchive(s: ArchiveSettings, dest: Place, io: StepIO, signal: AbortSignal): Promise<void> {
  const start = performance.now();
  await requireArchiveFile(s.source);
  const format = await formatToRead(s.format, s.source.path);
  const reading = async (f: () => Promise<void>): Promise<void> => {
    try {
      await f();
    } catch (e) {
      throw damaged(e, s.source.name, format, signal);
    }
  };
  if (s.verifyIntegrity) await reading(() => verify(s.source.path, format, signal, (e) => { planned(e, s); }));
  const d: Destination = {
    root: await destinationRoot(dest), overwrite: s.overwrite, stripComponents: s.stripComponents, signal,
    bytesLeft: s.maxBytes, maxBytes: s.maxBytes,
  };
  const counts = { filesExtracted: 0, bytesExtracted: 0, filesSkipped: 0 };
  let entries = 0;
  await reading(async () => {
    for await (const e of readArchive(s.source.path, format, signal)) {
      if (++entries > s.maxEntries) throw new StepError(`archive step: the archive has more than ${s.maxEntries} entries (config.maxEntries): refused`);
      const segments = planned(e, s);
      if (!segments) {
        if (e.type === 'other') io.err(`archive step: skipped "${e.name}": only files, directories and links are extracted\n`);
        if (e.type !== 'dir') counts.filesSkipped++;
        continue;
      }
      const { bytes, written } = await writeEntry(d, segments, e);
      if (written) counts.filesExtracted++;
      counts.bytesExtracted += bytes;
    }
  });
  printJson(io, {
    operation: 'extract', source: s.source.name, destination: dest.name, format, ...counts,
    duration: since(start), verifyPerformed: s.verifyIntegrity,
  });
}
