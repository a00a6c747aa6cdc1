/**
 * Archive formats: tar, tar.gz and zip. `config.format` wins; otherwise create infers the format from the
 * destination's extension, and extract and list from the archive's first bytes (its content, like the
 * reference: a renamed file is still read right), falling back to the extension.
 */
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { ARCHIVE_FORMATS } from '../../../core/spec/step-configs/archive.js';
import { StepError } from '../runner.js';

export type Format = 'tar' | 'tar.gz' | 'zip';

const NAMES: Record<(typeof ARCHIVE_FORMATS)[number], Format> = { tar: 'tar', 'tar.gz': 'tar.gz', tgz: 'tar.gz', zip: 'zip' };

/** The format a `config.format` value names (any case), or a StepError listing the known ones. */
export function formatNamed(name: string): Format {
  const f = (NAMES as Record<string, Format | undefined>)[name.trim().toLowerCase()];
  if (!f) throw new StepError(`archive step: config.format "${name}" is not supported (one of ${ARCHIVE_FORMATS.join(', ')})`);
  return f;
}

/** The format a file name's extension implies: .tar, .tar.gz, .tgz, .zip (any case); undefined otherwise. */
export function formatOfName(path: string): Format | undefined {
  const name = basename(path).toLowerCase();
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  if (name.endsWith('.tar')) return 'tar';
  if (name.endsWith('.zip')) return 'zip';
  return undefined;
}

/** The format of an archive to create: config.format, else the destination's extension. */
export function formatToCreate(given: Format | undefined, destination: string): Format {
  const f = given ?? formatOfName(destination);
  if (!f) throw new StepError(`archive step: cannot tell the format from the name "${basename(destination)}": name it .tar, .tar.gz, .tgz or .zip, or set config.format`);
  return f;
}

/** The format of an archive on disk: config.format, else its magic bytes, else its extension. */
export async function formatToRead(given: Format | undefined, path: string): Promise<Format> {
  if (given) return given;
  const f = sniff(await head(path)) ?? formatOfName(path);
  if (!f) throw new StepError(`archive step: ${basename(path)} is not a tar, tar.gz or zip archive (set config.format if it is one)`);
  return f;
}

async function head(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(512);
    const { bytesRead } = await fh.read(buf, 0, 512, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** zip local header or empty-archive end record; gzip magic; the ustar magic of a POSIX tar header. */
export function sniff(b: Buffer): Format | undefined {
  if (b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && (b[2] === 3 || b[2] === 5 || b[2] === 7)) return 'zip';
  if (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) return 'tar.gz';
  if (b.length >= 262 && b.subarray(257, 262).toString('latin1') === 'ustar') return 'tar';
  return undefined;
}
