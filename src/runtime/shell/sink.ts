/** Streams one pipe of a step into its log file(s) with secrets masked, and captures stdout for `output:`. */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createMasker } from '../../core/vars/mask.js';

export interface Capture {
  chunks: string[];
  bytes: number;
  overflow: boolean;
}

export const newCapture = (): Capture => ({ chunks: [], bytes: 0, overflow: false });

export class LogSink {
  private readonly streams: WriteStream[];

  constructor(paths: string[]) {
    this.streams = [...new Set(paths)].map((p) => createWriteStream(p, { flags: 'a' }));
  }

  write(text: string): void {
    if (text) for (const s of this.streams) s.write(text);
  }

  close(): Promise<void> {
    return Promise.all(this.streams.map((s) => new Promise<void>((res) => s.end(res)))).then(() => undefined);
  }
}

/** Pipes a child stream through a masker into a sink (and a capture buffer bounded at limit + 1 bytes). */
export function pump(stream: Readable, sink: LogSink, secrets: string[], capture?: Capture, limit = 0): Promise<void> {
  const masker = createMasker(secrets);
  stream.setEncoding('utf8');
  const keep = (text: string): void => {
    sink.write(text);
    if (!capture || capture.overflow || !text) return;
    capture.bytes += Buffer.byteLength(text);
    if (capture.bytes > limit) capture.overflow = true;
    else capture.chunks.push(text);
  };
  stream.on('data', (chunk: string) => keep(masker.push(chunk)));
  return new Promise((resolve) => {
    stream.on('end', () => { keep(masker.flush()); resolve(); });
    stream.on('error', () => { keep(masker.flush()); resolve(); });
  });
}
