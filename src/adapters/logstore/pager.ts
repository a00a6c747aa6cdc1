/**
 * SPEC 2.8 log pages over any random-access bytes (a file, a bucket's chunks, a buffer), within a fixed
 * memory budget whatever the log holds: a line longer than MAX_LINE_BYTES is cut (its first bytes, then
 * LINE_CUT), a page carries at most MAX_PAGE_BYTES of lines (then it ends early, hasMore set), and the
 * bytes are read CHUNK at a time. Lines are counted exactly up to SCAN_LIMIT bytes; beyond that totalLines
 * is extrapolated from the bytes read (isEstimate). A last line without a newline counts as a line.
 */
import { MAX_LOG_LINES, type LogPage, type LogQuery } from '../../core/ports/log-store.js';

export interface ByteSource {
  readonly size: number;
  /** The bytes [pos, pos + len), fewer only past the end. */
  read(pos: number, len: number): Promise<Buffer>;
}

/** A line is cut after this many bytes... */
export const MAX_LINE_BYTES = 64 * 1024;
/** ...and a page's lines hold at most this many bytes in all. */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;
/** Ends a line that was cut; begins one whose start lies beyond the bytes a tail scans. */
export const LINE_CUT = ` [svc: line cut at ${MAX_LINE_BYTES} bytes]`;
export const LINE_START_CUT = '[svc: line cut] ';
const CHUNK = 64 * 1024;
const SCAN_LIMIT = 64 * 1024 * 1024;
const NL = 0x0a;

function countNewlines(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(NL); i !== -1; i = buf.indexOf(NL, i + 1)) n++;
  return n;
}

/** At most MAX_LINE_BYTES of a line, cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx). */
function lineText(bytes: Buffer, cut: boolean): string {
  if (!cut) return bytes.toString('utf8');
  let end = Math.min(bytes.length, MAX_LINE_BYTES);
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.toString('utf8', 0, end) + LINE_CUT;
}

const page = (lines: string[], totalLines: number, hasMore: boolean, isEstimate: boolean): LogPage => ({
  content: lines.join('\n'), lineCount: lines.length, totalLines, hasMore, isEstimate,
});

export async function pageOf(src: ByteSource, q: LogQuery): Promise<LogPage> {
  const limit = Math.min(q.limit ?? MAX_LOG_LINES, MAX_LOG_LINES);
  if (q.head !== undefined) return new Forward(src, 1, Math.min(q.head, limit)).run();
  if (q.tail !== undefined) return tailPage(src, Math.min(q.tail, limit));
  return new Forward(src, q.offset ?? 1, limit).run();
}

/** Lines [first, first + count) and the total, reading from the start. */
class Forward {
  private readonly lines: string[] = [];
  private readonly end: number;
  private lineNo = 1;
  /** The kept bytes of the current line (at most MAX_LINE_BYTES + 1: one more tells it was cut). */
  private cur: Buffer[] = [];
  private kept = 0;
  private pending = false;
  private bytes = 0;
  private full = false;

  constructor(private readonly src: ByteSource, private readonly first: number, count: number) {
    this.end = first + count;
  }

  async run(): Promise<LogPage> {
    const { size } = this.src;
    for (let pos = 0; pos < size;) {
      if (pos > SCAN_LIMIT && this.done()) {
        if (this.pending) this.endLine(); // a huge line already cut: its end is not searched for
        return page(this.lines, Math.max(this.lineNo, Math.round(((this.lineNo - 1) * size) / pos)), true, true);
      }
      const chunk = await this.src.read(pos, Math.min(CHUNK, size - pos));
      if (chunk.length === 0) break;
      pos += chunk.length;
      this.scan(chunk);
    }
    if (this.pending) this.endLine();
    const total = this.lineNo - 1;
    return page(this.lines, total, this.first - 1 + this.lines.length < total, false);
  }

  private scan(chunk: Buffer): void {
    let start = 0;
    for (let i = chunk.indexOf(NL); i !== -1; i = chunk.indexOf(NL, start)) {
      this.keep(chunk.subarray(start, i));
      this.endLine();
      start = i + 1;
    }
    if (start < chunk.length) {
      this.pending = true;
      this.keep(chunk.subarray(start));
    }
  }

  /** Nothing more to keep: the page is complete, or its last line is cut already. */
  private done(): boolean {
    return this.lineNo >= this.end || this.full || (this.kept > MAX_LINE_BYTES && this.lineNo === this.end - 1);
  }

  private wanted(): boolean {
    return this.lineNo >= this.first && this.lineNo < this.end && !this.full;
  }

  private keep(part: Buffer): void {
    if (!this.wanted() || this.kept > MAX_LINE_BYTES) return;
    const take = part.subarray(0, MAX_LINE_BYTES + 1 - this.kept);
    this.cur.push(Buffer.from(take));
    this.kept += take.length;
  }

  private endLine(): void {
    if (this.wanted()) {
      const text = lineText(Buffer.concat(this.cur), this.kept > MAX_LINE_BYTES);
      const len = Buffer.byteLength(text);
      if (this.lines.length > 0 && this.bytes + len > MAX_PAGE_BYTES) this.full = true;
      else {
        this.lines.push(text);
        this.bytes += len;
      }
    }
    this.cur = [];
    this.kept = 0;
    this.pending = false;
    this.lineNo++;
  }
}

interface LineStarts {
  /** Where each of the last lines starts, in file order. */
  starts: number[];
  /** The end of the last line (a trailing newline excluded). */
  end: number;
  /** The first start is where the scan stopped, inside a longer line. */
  firstCut: boolean;
  /** Newlines seen from the first start to the end. */
  newlines: number;
}

/** Where the last `count` lines start, scanning back from the end: positions only, a chunk at a time. */
async function lineStarts(src: ByteSource, count: number): Promise<LineStarts> {
  const trailing = (await src.read(src.size - 1, 1))[0] === NL;
  const end = trailing ? src.size - 1 : src.size;
  const starts: number[] = [];
  let pos = end;
  while (pos > 0 && starts.length < count && end - pos < SCAN_LIMIT) {
    const len = Math.min(CHUNK, pos);
    const buf = await src.read(pos - len, len);
    for (let i = buf.lastIndexOf(NL); i !== -1 && starts.length < count; i = i > 0 ? buf.lastIndexOf(NL, i - 1) : -1) starts.push(pos - len + i + 1);
    pos -= len;
  }
  const firstCut = starts.length < count && pos > 0;
  if (starts.length < count) starts.push(pos);
  starts.reverse();
  return { starts, end, firstCut, newlines: starts.length - 1 + (trailing ? 1 : 0) };
}

/** The last `count` lines, as many as the page budget holds from the end. */
async function tailPage(src: ByteSource, count: number): Promise<LogPage> {
  if (src.size === 0 || count === 0) return page([], src.size === 0 ? 0 : (await countAll(src)).total, src.size > 0, false);
  const { starts, end, firstCut, newlines } = await lineStarts(src, count);
  const lines: string[] = [];
  let bytes = 0;
  for (let i = starts.length - 1; i >= 0; i--) {
    const from = starts[i] as number;
    const to = i + 1 < starts.length ? (starts[i + 1] as number) - 1 : end;
    const text = await lineAt(src, from, to, i === 0 && firstCut);
    const len = Buffer.byteLength(text);
    if (lines.length > 0 && bytes + len > MAX_PAGE_BYTES) break;
    lines.unshift(text);
    bytes += len;
  }
  const first = starts[starts.length - lines.length] as number;
  const { total, estimate } = await totalLines(src, first, newlines - (starts.length - lines.length), firstCut);
  return page(lines, total, total > lines.length || firstCut, estimate);
}

/** The line [from, to): its first MAX_LINE_BYTES, marked when cut; `startCut` when its start was not reached. */
async function lineAt(src: ByteSource, from: number, to: number, startCut: boolean): Promise<string> {
  let bytes = await src.read(from, Math.min(to - from, MAX_LINE_BYTES + 1));
  if (startCut) {
    let skip = 0;
    while (skip < 3 && ((bytes[skip] ?? 0) & 0xc0) === 0x80) skip++;
    bytes = bytes.subarray(skip);
  }
  const text = lineText(bytes, to - from > MAX_LINE_BYTES);
  return startCut ? LINE_START_CUT + text : text;
}

/** Lines before `from` are counted (or extrapolated on huge logs) and added to the ones after it. */
async function totalLines(src: ByteSource, from: number, newlinesAfter: number, cut: boolean): Promise<{ total: number; estimate: boolean }> {
  const after = newlinesAfter + (src.size > 0 && (await src.read(src.size - 1, 1))[0] !== NL ? 1 : 0);
  if (from === 0) return { total: after, estimate: false };
  if (cut || src.size > SCAN_LIMIT) return { total: Math.max(after + 1, Math.round((after * src.size) / Math.max(1, src.size - from))), estimate: true };
  let n = 0;
  for (let pos = 0; pos < from;) {
    const buf = await src.read(pos, Math.min(CHUNK, from - pos));
    if (buf.length === 0) break;
    n += countNewlines(buf);
    pos += buf.length;
  }
  return { total: n + after, estimate: false };
}

async function countAll(src: ByteSource): Promise<{ total: number }> {
  return totalLines(src, src.size, 0, false);
}

/** A source over bytes held whole (the in-memory log store). */
export const bufferSource = (buf: Buffer): ByteSource => ({
  size: buf.length,
  read: async (pos, len) => buf.subarray(pos, pos + len),
});
