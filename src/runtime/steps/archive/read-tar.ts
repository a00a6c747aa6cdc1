/**
 * Reads a tar or tar.gz archive entry by entry with node-tar's parser (it detects gzip itself). Strict:
 * a bad header checksum, a truncated archive or a gzip CRC error ends the reading with an error (node-tar
 * would otherwise warn and go on). Backpressure: the parser holds the file stream while an entry's content
 * is not read, so memory stays bounded whatever the archive's size.
 */
import { createReadStream } from 'node:fs';
import { Parser, type ReadEntry } from 'tar';
import type { ArchiveEntry, EntryType } from './entry.js';

const TYPES: Record<string, EntryType> = {
  File: 'file', OldFile: 'file', ContiguousFile: 'file', Directory: 'dir', SymbolicLink: 'symlink', Link: 'hardlink',
};

function toEntry(e: ReadEntry): ArchiveEntry {
  // A damaged archive destroys the entry with the error; whoever reads the content sees it, and nobody
  // reading it must not make it an uncaught 'error' event.
  e.on('error', () => undefined);
  const type = TYPES[e.type] ?? 'other';
  return {
    name: e.path, type, size: e.size ?? 0, mode: e.mode ?? (type === 'dir' ? 0o755 : 0o644),
    ...(e.mtime ? { mtime: e.mtime } : {}),
    ...(e.linkpath ? { linkTarget: e.linkpath } : {}),
    content: () => Promise.resolve(e),
  };
}

interface Feed {
  failed(): boolean;
  /** Resolves when the parser wants more input, or at once after a failure. */
  drain(): Promise<void>;
}

/** Feeds the file to the parser, honouring its backpressure; stops at the first failure. */
async function feed(path: string, parser: Parser, signal: AbortSignal, state: Feed): Promise<void> {
  const input = createReadStream(path, { signal });
  try {
    for await (const chunk of input) {
      if (state.failed()) break;
      if (!parser.write(chunk as Buffer)) await state.drain();
    }
  } finally {
    input.destroy();
  }
  if (!state.failed()) parser.end();
}

export async function* readTar(path: string, signal: AbortSignal): AsyncGenerator<ArchiveEntry> {
  const parser = new Parser({ strict: true });
  const queue: ReadEntry[] = [];
  let current: ReadEntry | undefined;
  let failure: Error | undefined;
  let ended = false;
  let wake = (): void => undefined;
  let unblock = (): void => undefined;
  const fail = (e: Error): void => {
    failure ??= e;
    current?.destroy(failure);
    wake();
    unblock();
  };
  let sawEof = false;
  parser.on('entry', (e: ReadEntry) => { queue.push(e); wake(); });
  parser.on('eof', () => { sawEof = true; });
  parser.on('error', (e: Error & { code?: string }) => {
    // node-tar calls an archive with no entry "unrecognized" even when it ends properly (two zero
    // blocks): that is an empty archive, as tar(1) writes one.
    if (sawEof && e.code === 'TAR_BAD_ARCHIVE' && /unrecognized/i.test(e.message)) return;
    fail(e);
  });
  parser.on('end', () => { ended = true; wake(); });
  const state: Feed = {
    failed: () => failure !== undefined,
    drain: () => new Promise<void>((resolve) => { unblock = resolve; parser.once('drain', resolve); }),
  };
  feed(path, parser, signal, state).catch(fail);
  try {
    for (;;) {
      if (failure) throw failure;
      current = queue.shift();
      if (current) {
        yield toEntry(current);
        await drained(current);
        continue;
      }
      if (ended) return;
      await new Promise<void>((resolve) => { wake = resolve; });
    }
  } finally {
    // The consumer stopped early (an unsafe entry, an abort): stop reading the file.
    if (!ended) fail(new Error('reading stopped'));
  }
}

/** Skips what the consumer did not read of an entry; the parser moves on once the entry has ended. */
function drained(e: ReadEntry): Promise<void> {
  if (e.emittedEnd || e.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    e.once('end', resolve);
    e.once('error', () => resolve());
    e.resume();
  });
}
