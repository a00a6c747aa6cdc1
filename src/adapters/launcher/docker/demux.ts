/**
 * The engine's multiplexed stream of an exec or container without a terminal: frames of an 8-byte header
 * (stream 1 stdout, 2 stderr; bytes 4-7 the payload length, big-endian) and the payload. Frames arrive
 * split or joined in any way: the parser keeps what it has not finished.
 */
export type Frame = (stream: 'stdout' | 'stderr', data: Buffer) => void;

export class Demuxer {
  private pending = Buffer.alloc(0);

  constructor(private readonly onFrame: Frame) {}

  push(chunk: Buffer): void {
    let buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    while (buf.length >= 8) {
      const size = buf.readUInt32BE(4);
      if (buf.length < 8 + size) break;
      const kind = buf[0];
      // 0 is stdin echoed back (never asked for); anything but stderr is treated as stdout.
      if (size > 0) this.onFrame(kind === 2 ? 'stderr' : 'stdout', buf.subarray(8, 8 + size));
      buf = buf.subarray(8 + size);
    }
    this.pending = Buffer.from(buf);
  }
}
