/**
 * Where a container step's two streams go: each through its own secret masker into its log file (and
 * the `stdout:` / `stderr:` copies), stdout also into the capture for `output:` (bounded by
 * maxOutputSize), as the process launcher writes them, so logs, masking and capture read the same.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
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

class Channel {
  private readonly decoder = new StringDecoder('utf8');
  private readonly masker: Masker;
  private readonly files: WriteStream[];

  constructor(paths: string[], secrets: string[], private readonly keep?: (text: string) => void) {
    this.masker = createMasker(secrets);
    this.files = [...new Set(paths)].map((p) => {
      mkdirSync(dirname(p), { recursive: true });
      return createWriteStream(p, { flags: 'a' });
    });
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
    this.out = new Channel([...logs(files.stdout), ...(files.stdoutCopy ? [files.stdoutCopy] : [])], o.secrets, o.capture ? (t) => this.keep(t) : undefined);
    this.err = new Channel([...logs(files.stderr), ...(files.stderrCopy ? [files.stderrCopy] : [])], o.secrets);
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
