/**
 * One server-sent events response (text/event-stream): named events with `id:` and JSON `data:`,
 * comment heartbeats so proxies keep an idle connection, and back-pressure: a writer waits for the
 * socket to drain, and a client that stops reading while events pile up is disconnected (it reconnects
 * and starts again from a fresh snapshot) instead of growing the server's memory.
 */
import type { Response } from 'express';

export interface SseOptions {
  /** Interval of the `: heartbeat` comments (ms). */
  heartbeatMs: number;
  /** Reconnection delay suggested to EventSource clients (ms). */
  retryMs?: number;
  /** Bytes queued for a client that does not read, beyond which it is disconnected. */
  maxBufferedBytes?: number;
}

const DEFAULT_MAX_BUFFERED = 4 * 1024 * 1024;

export class SseStream {
  private readonly heartbeat: NodeJS.Timeout;
  private readonly maxBuffered: number;
  private readonly closers = new Set<() => void>();
  private ended = false;

  constructor(private readonly res: Response, o: SseOptions) {
    this.maxBuffered = o.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED;
    res.status(200).set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      // no-transform: a compressing proxy would buffer the stream.
      'Cache-Control': 'no-cache, no-store, no-transform',
      Connection: 'keep-alive',
      // nginx buffers responses unless told not to.
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.on('close', () => this.finish());
    res.on('error', () => this.finish());
    this.heartbeat = setInterval(() => this.raw(': heartbeat\n\n'), o.heartbeatMs);
    this.heartbeat.unref();
    // The client left while the stream was being prepared (its 'close' came before the listener).
    if (res.closed || res.destroyed) this.finish();
    this.raw(`retry: ${o.retryMs ?? 3000}\n\n`);
  }

  /** Whether the client is gone (or the stream was ended). */
  get closed(): boolean {
    return this.ended;
  }

  /** Calls fn once when the stream ends, for whatever reason (the client left, end(), overflow). */
  onClose(fn: () => void): void {
    if (this.ended) fn();
    else this.closers.add(fn);
  }

  /**
   * Sends one event. Returns false when the socket's buffer is full: a writer that can wait (a log
   * tail) awaits drained() before the next read.
   */
  send(event: string, data: unknown, id?: string | number): boolean {
    // JSON.stringify escapes line breaks inside strings: the data is always one line.
    return this.raw(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Resolves when the socket can take more, or the stream closed. */
  drained(): Promise<void> {
    if (this.ended || !this.res.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.closers.delete(done);
        resolve();
      };
      this.res.once('drain', done);
      this.closers.add(done);
    });
  }

  /** Ends the response (after what was sent). */
  end(): void {
    if (this.ended) return;
    this.res.end();
    this.finish();
  }

  private raw(text: string): boolean {
    if (this.ended || this.res.destroyed) return false;
    if (this.res.writableLength > this.maxBuffered) {
      // The client reads nothing: drop it rather than queue without bound.
      this.res.destroy();
      this.finish();
      return false;
    }
    return this.res.write(text);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeat);
    for (const fn of [...this.closers]) {
      try { fn(); } catch { /* cleanup of one part never stops the others */ }
    }
    this.closers.clear();
  }
}
