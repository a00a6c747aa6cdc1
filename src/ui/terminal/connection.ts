/**
 * One web terminal session (docs/api.md "Web terminal"): a ticket from POST /terminal/tickets (the
 * session's bearer token goes with it), then the WebSocket, which a browser cannot give an Authorization
 * header. Binary frames carry keystrokes and output; text frames are JSON control messages.
 */
import { API_BASE, api, must } from '../api/client';

export interface TerminalSink {
  write(data: Uint8Array): void;
  /** The socket closed: why, in words. */
  closed(reason: string): void;
}

export interface Connection {
  send(keys: string): void;
  resize(cols: number, rows: number): void;
  close(): void;
}

const encoder = new TextEncoder();

function sessionUrl(ticket: string, cols: number, rows: number): string {
  const url = new URL(`${API_BASE}/terminal/session`, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = new URLSearchParams({ ticket, cols: String(cols), rows: String(rows) }).toString();
  return url.toString();
}

/** Why the socket closed, from its close code and the last control message. */
function closeReason(e: CloseEvent, exit: { code: number | null } | undefined): string {
  if (exit) return exit.code === null ? 'The shell was ended.' : `The shell exited with code ${exit.code}.`;
  if (e.code === 1001) return 'The server is stopping.';
  return e.reason ? `Closed: ${e.reason}` : `The connection closed (code ${e.code}).`;
}

export async function connect(sink: TerminalSink, cols: number, rows: number): Promise<Connection> {
  const { ticket } = await must(api.POST('/terminal/tickets'));
  const ws = new WebSocket(sessionUrl(ticket, cols, rows));
  ws.binaryType = 'arraybuffer';
  let exit: { code: number | null } | undefined;
  ws.onmessage = (e: MessageEvent<ArrayBuffer | string>) => {
    if (typeof e.data !== 'string') return sink.write(new Uint8Array(e.data));
    const msg = JSON.parse(e.data) as { type: string; code?: number | null };
    if (msg.type === 'exit') exit = { code: msg.code ?? null };
  };
  // Nothing is sent before the socket is open; a refused upgrade shows only as a close (1006) to a page.
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onclose = (e) => reject(new Error(e.code === 1006 ? 'The server refused the terminal or could not be reached.' : closeReason(e, undefined)));
  });
  ws.onclose = (e) => sink.closed(closeReason(e, exit));
  const whenOpen = (fn: () => void) => { if (ws.readyState === WebSocket.OPEN) fn(); };
  return {
    send: (keys) => whenOpen(() => ws.send(encoder.encode(keys))),
    resize: (c, r) => whenOpen(() => ws.send(JSON.stringify({ type: 'resize', cols: c, rows: r }))),
    close: () => ws.close(1000, 'closed by the user'),
  };
}
