/** Entries of an archive on disk in its format; damage of any kind becomes one clear StepError. */
import { StepError } from '../runner.js';
import type { ArchiveEntry } from './entry.js';
import type { Format } from './format.js';
import { readTar } from './read-tar.js';
import { readZip } from './read-zip.js';

export function readArchive(path: string, format: Format, signal: AbortSignal): AsyncGenerator<ArchiveEntry> {
  return format === 'zip' ? readZip(path, signal) : readTar(path, signal);
}

/** A read failure as the step reports it: "archive step: <file> is damaged or not a <format> archive: <why>". */
export function damaged(e: unknown, file: string, format: Format, signal: AbortSignal): Error {
  if (signal.aborted) return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
  if (e instanceof StepError) return e;
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOENT') return new StepError(`archive step: ${file}: no such file`);
  return new StepError(`archive step: ${file} is damaged or not a ${format} archive: ${err.message ?? String(e)}`);
}

/** Reads every entry and all content to the end (nothing written): the whole archive's checksums pass. */
export async function verify(path: string, format: Format, signal: AbortSignal, check: (e: ArchiveEntry) => void = () => undefined): Promise<void> {
  for await (const e of readArchive(path, format, signal)) {
    check(e);
    if (e.type !== 'file') continue;
    for await (const _chunk of await e.content()) { /* read to the end: CRCs are checked there */ }
  }
}
