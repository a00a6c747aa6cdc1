/**
 * The exec records file of an attempt lives in the run's directory, which the step's own processes can
 * write to: it is opened without following a link (O_NOFOLLOW) and without blocking on a FIFO
 * (O_NONBLOCK), and only a regular file with one name is read or appended to. A planted name reads as
 * no record and takes no append (the step's record is then lost, never written into another file).
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';

const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A descriptor of the regular file at `path` (never through a link as its last name), or an error. */
export function openOwnFile(path: string, append: boolean): number {
  const fd = openSync(path, append ? APPEND : READ, 0o644);
  const st = fstatSync(fd);
  if (!st.isFile() || st.nlink > 1) {
    closeSync(fd);
    throw Object.assign(new Error(`${path} is not a regular file of ours: it is neither read nor appended to`), { code: 'EPLANTED' });
  }
  return fd;
}

/** Appends `text` in one write(2) (whole lines whoever else appends). */
export function appendOwnFileSync(path: string, text: string): void {
  const fd = openOwnFile(path, true);
  try { writeSync(fd, text); } finally { closeSync(fd); }
}

/** The bytes of the file from `offset` on (at most what it holds now). */
export function readOwnFileSync(path: string, offset = 0): Buffer {
  const fd = openOwnFile(path, false);
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(Math.max(0, size - offset));
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, offset + n);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
