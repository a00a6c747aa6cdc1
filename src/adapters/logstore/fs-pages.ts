/**
 * LogPageReader over files: streams in fixed chunks, so a page of a multi-gigabyte log costs the page,
 * not the file. Lines are counted exactly up to SCAN_LIMIT bytes; beyond that totalLines is
 * extrapolated from the bytes read (isEstimate). A last line without a newline counts as a line.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { MAX_LOG_LINES, type LogPage, type LogQuery } from '../../core/ports/log-store.js';

const CHUNK = 64 * 1024;
const SCAN_LIMIT = 64 * 1024 * 1024;
/** A page never carries more text than this (very long lines). */
const MAX_PAGE_BYTES = 16 * 1024 * 1024;
const NL = 0x0a;

function countNewlines(buf: Buffer, end = buf.length): number {
  let n = 0;
  for (let i = buf.indexOf(NL); i !== -1 && i < end; i = buf.indexOf(NL, i + 1)) n++;
  return n;
}

export class FsLogPages {
  async read(path: string, q: LogQuery): Promise<LogPage | undefined> {
    let fh: FileHandle;
    try {
      fh = await open(path, 'r');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
      throw e;
    }
    try {
      const size = (await fh.stat()).size;
      const limit = Math.min(q.limit ?? MAX_LOG_LINES, MAX_LOG_LINES);
      if (q.head !== undefined) return await forward(fh, size, 1, Math.min(q.head, limit));
      if (q.tail !== undefined) return await backward(fh, size, Math.min(q.tail, limit));
      return await forward(fh, size, q.offset ?? 1, limit);
    } finally {
      await fh.close();
    }
  }
}

/** Lines [first, first + count) and the total, reading from the start. */
async function forward(fh: FileHandle, size: number, first: number, count: number): Promise<LogPage> {
  const lines: string[] = [];
  const end = first + count;
  let lineNo = 1;
  let cur: Buffer[] = [];
  let pending = false;
  let bytes = 0;
  const wanted = () => lineNo >= first && lineNo < end && bytes < MAX_PAGE_BYTES;
  const emit = (last: Buffer) => {
    const text = Buffer.concat([...cur, last]).toString('utf8');
    lines.push(text);
    bytes += text.length;
  };
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let pos = 0; pos < size;) {
    if (lineNo >= end && pos > SCAN_LIMIT) return page(lines, Math.max(lineNo, Math.round(((lineNo - 1) * size) / pos)), true, true);
    const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const chunk = buf.subarray(0, bytesRead);
    let start = 0;
    for (let i = chunk.indexOf(NL); i !== -1; i = chunk.indexOf(NL, start)) {
      if (wanted()) emit(chunk.subarray(start, i));
      cur = [];
      pending = false;
      lineNo++;
      start = i + 1;
    }
    if (start < chunk.length) {
      pending = true;
      if (wanted()) cur.push(Buffer.from(chunk.subarray(start)));
    }
  }
  if (pending) {
    if (wanted()) emit(Buffer.alloc(0));
    lineNo++;
  }
  const total = lineNo - 1;
  return page(lines, total, first - 1 + lines.length < total, false);
}

/** The last `count` lines, reading backwards from the end. */
async function backward(fh: FileHandle, size: number, count: number): Promise<LogPage> {
  if (size === 0) return page([], 0, false, false);
  const chunks: Buffer[] = [];
  let pos = size;
  let newlines = 0;
  while (pos > 0 && newlines <= count) {
    const len = Math.min(CHUNK, pos);
    pos -= len;
    const buf = Buffer.allocUnsafe(len);
    await fh.read(buf, 0, len, pos);
    chunks.unshift(buf);
    newlines += countNewlines(buf);
  }
  const tail = Buffer.concat(chunks);
  const trailing = tail[tail.length - 1] === NL;
  const all = tail.toString('utf8').split('\n');
  if (trailing) all.pop();
  if (pos > 0) all.shift(); // a partial line: the page starts after a newline
  const lines = all.slice(-count);
  const { total, estimate } = await totalLines(fh, size, pos, newlines + (trailing ? 0 : 1));
  return page(lines, total, total > lines.length, estimate);
}

/** Lines before tailStart are counted (or extrapolated on huge files) and added to the tail's. */
async function totalLines(fh: FileHandle, size: number, tailStart: number, tailLines: number): Promise<{ total: number; estimate: boolean }> {
  if (tailStart === 0) return { total: tailLines, estimate: false };
  if (size > SCAN_LIMIT) return { total: Math.round((tailLines * size) / Math.max(1, size - tailStart)), estimate: true };
  let n = 0;
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let pos = 0; pos < tailStart;) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, tailStart - pos), pos);
    if (bytesRead === 0) break;
    n += countNewlines(buf, bytesRead);
    pos += bytesRead;
  }
  return { total: n + tailLines, estimate: false };
}

const page = (lines: string[], totalLines: number, hasMore: boolean, isEstimate: boolean): LogPage => ({
  content: lines.join('\n'), lineCount: lines.length, totalLines, hasMore, isEstimate,
});
