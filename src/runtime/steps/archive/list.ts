/**
 * `list`: the entries of an archive, filtered by include/exclude, as one JSON object (the reference's
 * shape): operation, source, format, totalFiles, totalSize (bytes of files), files [{path, type, size,
 * mode, modTime, isDir, linkTarget?}], verified, duration. Nothing is written.
 */
import type { StepIO } from '../runner.js';
import { displayName, selected } from './entry-path.js';
import type { ArchiveEntry } from './entry.js';
import { formatToRead } from './format.js';
import { damaged, readArchive, verify } from './read.js';
import { modeText, printJson, since } from './report.js';
import type { ArchiveSettings } from './settings.js';
import { requireArchiveFile } from './source.js';

function listed(e: ArchiveEntry, path: string): Record<string, unknown> {
  return {
    path, type: e.type, size: e.type === 'file' ? e.size : 0, mode: modeText(e.type, e.mode),
    modTime: e.mtime?.toISOString() ?? null, isDir: e.type === 'dir',
    ...(e.linkTarget !== undefined ? { linkTarget: e.linkTarget } : {}),
  };
}

export async function listArchive(s: ArchiveSettings, io: StepIO, signal: AbortSignal): Promise<void> {
  const start = performance.now();
  await requireArchiveFile(s.source);
  const format = await formatToRead(s.format, s.source.path);
  const files: Record<string, unknown>[] = [];
  let totalSize = 0;
  try {
    if (s.verifyIntegrity) await verify(s.source.path, format, signal);
    for await (const e of readArchive(s.source.path, format, signal)) {
      const path = displayName(e.name);
      if (path === '' || !selected(path, s.include, s.exclude)) continue;
      files.push(listed(e, path));
      if (e.type === 'file') totalSize += e.size;
    }
  } catch (e) {
    throw damaged(e, s.source.name, format, signal);
  }
  printJson(io, {
    operation: 'list', source: s.source.name, format, totalFiles: files.length, totalSize, files,
    verified: s.verifyIntegrity, duration: since(start),
  });
}
