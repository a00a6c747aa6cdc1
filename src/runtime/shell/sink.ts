/** Streams one pipe of a step into its log file(s) with secrets masked, and captures stdout for `output:`. */
import { constants, createWriteStream, openSync, type WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { createMasker } from '../../core/vars/mask.js';

export interface Capture {
  chunks: string[];
  bytes: number;
  overflow: boolean;
}

export const newCapture = (): Capture => ({ chunks: [], bytes: 0, overflow: false });

/**
 * The engine's own opens of a step's log files never go through a link planted at the file (O_NOFOLLOW:
 * the open fails) nor block on a planted FIFO (O_NONBLOCK). The log store reads them with every directory
 * checked too (adapters/fs/safe-open.ts); here the step runs as this user, so this only keeps the engine
 * from writing or capturing through a link what the step itself could not.
 */
export const LOG_APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A log file for appending; undefined when something other than a file was planted there (it gets nothing). */
function openLog(path: string): WriteStream | undefined {
  try {
    return createWriteStream(path, { fd: openSync(path, LOG_APPEND, 0o644) });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EISDIR') return undefined;
    throw e;
  }
}

export class LogSink {
  private readonly streams: WriteStream[];

  /** `logs`: the step's log files, never opened through a link; `copy`: a file the DAG names. */
  constructor(logs: string[], copy?: string) {
    this.streams = [
      ...[...new Set(logs)].flatMap((p) => openLog(p) ?? []),
      ...(copy && !logs.includes(copy) ? [createWriteStream(copy, { flags: 'a' })] : []),
    ];
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
