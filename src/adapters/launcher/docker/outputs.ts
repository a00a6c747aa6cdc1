/**
 * Where a container step's two streams go: each through its own secret masker into its log file (and
 * the `stdout:` / `stderr:` copies), stdout also into the capture for `output:` (bounded by
 * maxOutputSize), as the process launcher writes them, so logs, masking and capture read the same.
 */
import { constants, createWriteStream, mkdirSync, openSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { createMasker, type Masker } from '../../../core/vars/mask.js';

export interface OutputFiles {
  stdout: string;
  stderr: string;
  stdoutCopy?: string | undefined;
  stderrCopy?: string | undefined;
}

export interface OutputOptions {
  secrets: string[];
  capture: boolean;
  maxOutputSize: number;
  /** Write no log at all (a probe that reads a secret): the output only comes back in the result. */
  unlogged: boolean;
}

export interface Captured {
  text: string;
  overflow: boolean;
}

/** A step's log file is never opened through a link planted at it, nor blocks on a planted FIFO. */
const LOG_APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function openLog(path: string): WriteStream[] {
  mkdirSync(dirname(path), { recursive: true });
  try {
    return [createWriteStream(path, { fd: openSync(path, LOG_APPEND, 0o644) })];
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') return []; // planted: it gets nothing
    throw e;
  }
}

class Channel {
  private readonly decoder = new StringDecoder('utf8');
  private readonly masker: Masker;
  private readonly files: WriteStream[];

  /** `logs`: the step's log files; `copy`: a file the DAG names (`stdout:`), opened as the step would. */
  constructor(logs: string[], copy: string | undefined, secrets: string[], private readonly keep?: (text: string) => void) {
    this.masker = createMasker(secrets);
    this.files = [...new Set(logs)].flatMap(openLog);
    if (copy && !logs.includes(copy)) {
      mkdirSync(dirname(copy), { recursive: true });
      this.files.push(createWriteStream(copy, { flags: 'a' }));
    }
  }

  write(data: Buffer | string): void {
    this.emit(this.masker.push(typeof data === 'string' ? data : this.decoder.write(data)));
  }

  async close(): Promise<void> {
    this.emit(this.masker.push(this.decoder.end()) + this.masker.flush());
    await Promise.all(this.files.map((f) => new Promise<void>((res) => f.end(res))));
  }

  private emit(text: string): void {
    if (!text) return;
    for (const f of this.files) f.write(text);
    this.keep?.(text);
  }
}

export class ExecOutputs {
  private readonly out: Channel;
  private readonly err: Channel;
  private readonly chunks: string[] = [];
  private bytes = 0;
  private overflow = false;

  constructor(files: OutputFiles, private readonly o: OutputOptions) {
    const logs = (p: string): string[] => (o.unlogged ? [] : [p]);
    this.out = new Channel(logs(files.stdout), files.stdoutCopy, o.secrets, o.capture ? (t) => this.keep(t) : undefined);
    this.err = new Channel(logs(files.stderr), files.stderrCopy, o.secrets);
  }

  write(stream: 'stdout' | 'stderr', data: Buffer): void {
    (stream === 'stdout' ? this.out : this.err).write(data);
  }

  /** A message of svc itself about the step (why it could not start, a readiness wait) into stderr. */
  note(text: string): void {
    this.err.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  async finish(): Promise<Captured | undefined> {
    await Promise.all([this.out.close(), this.err.close()]);
    return this.o.capture ? { text: this.chunks.join(''), overflow: this.overflow } : undefined;
  }

  private keep(text: string): void {
    if (this.overflow) return;
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.o.maxOutputSize) this.overflow = true;
    else this.chunks.push(text);
  }
}
