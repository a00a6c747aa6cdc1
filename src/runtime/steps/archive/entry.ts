/** One entry of an archive as the readers (read-tar.ts, read-zip.ts) hand it over, whatever the format. */
import type { Readable } from 'node:stream';

export type EntryType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'other';

export interface ArchiveEntry {
  /** The name as stored (slash-separated; may be unsafe: see entry-path.ts). */
  name: string;
  type: EntryType;
  size: number;
  /** Permission bits (0o777 and the setuid/sticky bits are dropped where files are written). */
  mode: number;
  mtime?: Date;
  /** Where a symlink points, or the entry name a hard link repeats. */
  linkTarget?: string;
  /**
   * The content of a file entry. Read it (or not) before asking the reader for the next entry: a tar
   * archive is one stream, so what is not read is skipped. Damage shows as an error of this stream.
   */
  content(): Promise<Readable | AsyncIterable<Buffer>>;
}
