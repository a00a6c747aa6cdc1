/**
 * A server-sent events client over Node's fetch (as a browser's fetch-based reader would read the
 * stream): parses `event:`, `id:`, `data:` fields and counts comment lines (heartbeats).
 */
import { get, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

export interface SseEvent { event: string; id?: string; data: any }

export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  /** The stream ended (the server closed it, or close()). */
  ended = false;
  error?: any;
  private waiters = new Set<() => void>();

  private constructor(readonly status: number, readonly headers: Headers, private readonly body: ReadableStream<Uint8Array> | null,
    private readonly abort: AbortController) {}

  /** Opens the stream; a non-2xx answer is returned with its JSON body in `error` (and nothing is read). */
  static async open(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<SseClient> {
    const abort = new AbortController();
    const res = localAddress ? await fromAddress(url, headers, localAddress, abort.signal)
      : await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    const c = new SseClient(res.status, res.headers, res.body, abort);
    if (res.status !== 200) {
      const text = await res.text();
      try { c.error = JSON.parse(text); } catch { c.error = text; }
      c.ended = true;
      return c;
    }
    void c.pump();
    return c;
  }

  private async pump(): Promise<void> {
    const reader = this.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) !== -1) {
          this.block(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
      }
    } catch { /* aborted */ }
    this.ended = true;
    this.notify();
  }

  private block(text: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    let fields = 0;
    for (const line of text.split('\n')) {
      if (line.startsWith(':')) { this.comments++; continue; }
      const at = line.indexOf(':');
      const field = at === -1 ? line : line.slice(0, at);
      const value = at === -1 ? '' : line.slice(at + 1).replace(/^ /, '');
      fields++;
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (fields === 0 || data.length === 0) { this.notify(); return; }
    this.events.push({ event, ...(id !== undefined ? { id } : {}), data: JSON.parse(data.join('\n')) });
    this.notify();
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Waits until pred holds over the events received so far (bounded); returns the first event it holds for, when it is about one. */
  async until(pred: (events: SseEvent[]) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    if (pred(this.events)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.events.map((e) => ({ event: e.event, id: e.id, data: summary(e.data) })))}`));
      }, timeoutMs);
      const check = (): void => {
        if (!pred(this.events) && !this.ended) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        if (pred(this.events)) resolve();
        else reject(new Error(`the stream ended before ${what}; events: ${JSON.stringify(this.events.map((e) => ({ event: e.event, data: summary(e.data) })))}`));
      };
      this.waiters.add(check);
    });
  }

  /** The first event named `event` for which pred holds, once it came. */
  async next(event: string, pred: (data: any) => boolean = () => true, what = event, timeoutMs?: number): Promise<SseEvent> {
    await this.until((es) => es.some((e) => e.event === event && pred(e.data)), what, timeoutMs);
    return this.events.find((e) => e.event === event && pred(e.data))!;
  }

  /** Waits for the server to end the stream. */
  async closedByServer(timeoutMs = 30_000): Promise<void> {
    await this.until(() => this.ended, 'the end of the stream', timeoutMs);
  }

  close(): void {
    this.abort.abort();
  }
}

const summary = (d: any): unknown => {
  if (d?.dagRun) return { run: d.dagRun.dagRunId, status: d.dagRun.statusLabel, nodes: d.dagRun.nodes?.map((n: any) => n.statusLabel) };
  if (d?.dagRuns) return { runs: d.dagRuns.length };
  return d;
};

/** A GET from another loopback source address (another client to the server's per-client stream cap): fetch cannot choose one. */
async function fromAddress(url: string, headers: Record<string, string>, localAddress: string, signal: AbortSignal): Promise<Response> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    get(url, { headers: { accept: 'text/event-stream', ...headers }, localAddress, signal }, resolve).on('error', reject);
  });
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
  return new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status: res.statusCode ?? 0, headers: h });
}
