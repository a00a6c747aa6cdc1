/**
 * Reads a zip archive entry by entry with yauzl (central directory first, contents on demand). yauzl
 * checks sizes but not CRC-32s, so every content stream passes through a CRC check: a damaged entry
 * fails with its name. Names are decoded here rather than by yauzl, which would reject an unsafe name
 * before extract.ts can report it as such (and before list can show it).
 */
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { StepError } from '../runner.js';
import type { ArchiveEntry, EntryType } from './entry.js';

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

/** Passes data through and fails at the end when its CRC-32 is not the one the archive recorded. */
class CrcCheck extends Transform {
  private crc = 0;
  constructor(private readonly expected: number, private readonly name: string) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.crc = crc32(chunk, this.crc);
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    done(this.crc >>> 0 === this.expected >>> 0 ? null : new StepError(`archive step: entry "${this.name}" is damaged (CRC-32 mismatch)`));
  }
}

function typeOf(name: string, mode: number): EntryType {
  if ((mode & S_IFMT) === S_IFLNK) return 'symlink';
  if (name.endsWith('/') || (mode & S_IFMT) === S_IFDIR) return 'dir';
  return 'file';
}

async function open(zip: ZipFile, e: Entry, name: string): Promise<Readable> {
  if (e.isEncrypted()) throw new StepError(`archive step: entry "${name}" is encrypted (not supported)`);
  const raw = await zip.openReadStreamPromise(e);
  const checked = new CrcCheck(e.crc32, name);
  raw.once('error', (err) => checked.destroy(err));
  checked.once('close', () => raw.destroy());
  return raw.pipe(checked);
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function toEntry(zip: ZipFile, e: Entry): Promise<ArchiveEntry> {
  const name = yauzl.getFileNameLowLevel(e.generalPurposeBitFlag, e.fileNameRaw, e.extraFields, false);
  const mode = e.externalFileAttributes >>> 16;
  const type = typeOf(name, mode);
  const linkTarget = type === 'symlink' ? await readAll(await open(zip, e, name)) : undefined;
  return {
    name, type, size: e.uncompressedSize, mode: (mode & 0o7777) || (type === 'dir' ? 0o755 : 0o644),
    mtime: e.getLastModDate(),
    ...(linkTarget !== undefined ? { linkTarget } : {}),
    content: () => open(zip, e, name),
  };
}

function next(zip: ZipFile, signal: AbortSignal): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      zip.off('entry', onEntry).off('end', onEnd).off('error', reject);
      signal.removeEventListener('abort', onAbort);
    };
    const onEntry = (e: Entry): void => { done(); resolve(e); };
    const onEnd = (): void => { done(); resolve(undefined); };
    const onAbort = (): void => { done(); reject(signal.reason); };
    zip.on('entry', onEntry).on('end', onEnd).once('error', reject);
    signal.addEventListener('abort', onAbort, { once: true });
    zip.readEntry();
  });
}

export async function* readZip(path: string, signal: AbortSignal): AsyncGenerator<ArchiveEntry> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: true });
  try {
    for (let e = await next(zip, signal); e; e = await next(zip, signal)) yield await toEntry(zip, e);
  } finally {
    zip.close();
  }
}
