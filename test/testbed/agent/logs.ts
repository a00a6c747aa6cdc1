/**
 * Container logs in the CRI file format the kubelet reads (`<RFC3339Nano> <stream> <F|P> <text>` per line),
 * and the kubelet's /containerLogs semantics: follow, tailLines, sinceTime/sinceSeconds, timestamps,
 * limitBytes.
 */
import fs from 'node:fs';
import type { Readable, Writable } from 'node:stream';

let lastNs = 0n;
/** RFC3339 with nanoseconds, strictly increasing within this process. */
export function nanoTimestamp(): string {
  const now = BigInt(Date.now()) * 1000000n;
  lastNs = now > lastNs ? now : lastNs + 1n;
  const ms = Number(lastNs / 1000000n);
  const frac = (lastNs % 1000000000n).toString().padStart(9, '0');
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, `.${frac}Z`);
}

/** Appends a container's stdout/stderr to its log file, line by line. */
export class LogWriter {
  private readonly fd: number;
  private readonly partial = new Map<string, string>();
  private open = 0;

  constructor(readonly path: string) {
    this.fd = fs.openSync(path, 'a');
  }

  attach(stream: Readable, name: 'stdout' | 'stderr'): void {
    this.open++;
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => this.write(name, chunk));
    stream.on('close', () => this.flush(name));
  }

  private write(name: string, chunk: string): void {
    let text = (this.partial.get(name) ?? '') + chunk;
    let out = '';
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      out += `${nanoTimestamp()} ${name} F ${text.slice(0, nl)}\n`;
      text = text.slice(nl + 1);
    }
    // Very long lines without a newline are split like the CRI does (partial records).
    while (text.length >= 16384) {
      out += `${nanoTimestamp()} ${name} P ${text.slice(0, 16384)}\n`;
      text = text.slice(16384);
    }
    this.partial.set(name, text);
    if (out) fs.writeSync(this.fd, out);
  }

  private flush(name: string): void {
    const rest = this.partial.get(name);
    if (rest) fs.writeSync(this.fd, `${nanoTimestamp()} ${name} P ${rest}\n`);
    this.partial.delete(name);
    if (--this.open === 0) fs.closeSync(this.fd);
  }
}

export interface LogOptions {
  follow: boolean;
  tailLines?: number;
  sinceTime?: string; // RFC3339
  timestamps: boolean;
  limitBytes?: number;
}

interface Entry {
  time: string;
  tag: string;
  text: string;
}

function parse(line: string): Entry | undefined {
  const a = line.indexOf(' ');
  const b = line.indexOf(' ', a + 1);
  const c = line.indexOf(' ', b + 1);
  if (a < 0 || b < 0 || c < 0) return undefined;
  return { time: line.slice(0, a), tag: line.slice(b + 1, c), text: line.slice(c + 1) };
}

function render(e: Entry, timestamps: boolean, atLineStart: boolean): string {
  const text = e.tag === 'F' ? `${e.text}\n` : e.text;
  return timestamps && atLineStart ? `${e.time} ${text}` : text;
}

/**
 * Writes the log at `path` to `out`. With follow, keeps reading appended lines until `done()` says the
 * container has exited and everything was read, or the client goes away.
 */
export async function serveLog(path: string, opts: LogOptions, out: Writable, done: () => boolean): Promise<void> {
  let offset = 0;
  let rest = '';
  let written = 0;
  let atLineStart = true;
  const since = opts.sinceTime ? Date.parse(opts.sinceTime) : undefined;
  const limit = opts.limitBytes;
  let closed = false;
  out.on('close', () => (closed = true));

  const emit = (entries: Entry[]): boolean => {
    let chunk = '';
    for (const e of entries) {
      if (since !== undefined && Date.parse(e.time) < since) continue;
      chunk += render(e, opts.timestamps, atLineStart);
      atLineStart = e.tag === 'F';
    }
    if (!chunk) return true;
    if (limit !== undefined) {
      const buf = Buffer.from(chunk);
      const room = limit - written;
      if (buf.length >= room) {
        out.write(buf.subarray(0, room));
        written = limit;
        return false;
      }
    }
    written += Buffer.byteLength(chunk);
    out.write(chunk);
    return true;
  };

  const readNew = (): Entry[] => {
    let size: number;
    try {
      size = fs.statSync(path).size;
    } catch {
      return [];
    }
    if (size <= offset) return [];
    const fd = fs.openSync(path, 'r');
    const buf = Buffer.alloc(size - offset);
    fs.readSync(fd, buf, 0, buf.length, offset);
    fs.closeSync(fd);
    offset = size;
    const text = rest + buf.toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    return lines.map(parse).filter((e): e is Entry => e !== undefined);
  };

  let first = readNew();
  if (opts.tailLines !== undefined) {
    // tailLines counts log lines: one line is a run of P records ended by an F record.
    const groups: Entry[][] = [];
    let cur: Entry[] = [];
    for (const e of first) {
      cur.push(e);
      if (e.tag === 'F') {
        groups.push(cur);
        cur = [];
      }
    }
    if (cur.length) groups.push(cur);
    first = groups.slice(Math.max(0, groups.length - opts.tailLines)).flat();
  }
  if (!emit(first) || !opts.follow) return;
  while (!closed) {
    const finished = done();
    const more = readNew();
    if (!emit(more)) return;
    if (finished && more.length === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
