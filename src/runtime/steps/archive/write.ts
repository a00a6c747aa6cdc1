/**
 * Archive writers: a stream of the archive's bytes for a list of source items. tar and tar.gz through
 * node-tar (given exactly the walked items, so include/exclude and the skip rules hold; portable: no uid,
 * gid or user names), zip through yazl (symlinks as entries with the link mode bits, as Info-ZIP does).
 */
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { Pack } from 'tar';
import yazl from 'yazl';
import type { Format } from './format.js';
import type { SourceItem } from './walk.js';

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** A Pack fed directly (not tar.create, which reads a name starting with "@" as another archive to copy in). */
function tarStream(items: SourceItem[], cwd: string, gzip: boolean): AsyncIterable<Buffer> {
  const pack = new Pack({ cwd, gzip, portable: true, noDirRecurse: true, follow: false });
  for (const it of items) pack.add(it.name);
  pack.end();
  return pack;
}

function zipStream(items: SourceItem[]): Readable {
  const zip = new yazl.ZipFile();
  for (const it of items) {
    const perms = it.mode & 0o777;
    if (it.type === 'dir') zip.addEmptyDirectory(it.name, { mtime: it.mtime, mode: S_IFDIR | perms });
    else if (it.type === 'symlink') zip.addBuffer(Buffer.from(it.linkTarget ?? ''), it.name, { mtime: it.mtime, mode: S_IFLNK | perms, compress: false });
    else zip.addFile(it.path, it.name, { mtime: it.mtime, mode: S_IFREG | perms });
  }
  zip.end();
  return zip.outputStream as Readable;
}

/** The bytes of the archive. `source` is the walked source path: names are relative to its directory. */
export function archiveStream(format: Format, items: SourceItem[], source: string): Readable | AsyncIterable<Buffer> {
  return format === 'zip' ? zipStream(items) : tarStream(items, dirname(source), format === 'tar.gz');
}
