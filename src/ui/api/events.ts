/**
 * Server-sent events of /api/v2/events read with fetch() (EventSource cannot send the session's
 * Authorization header): calls `onEvent` with each event's name and data. Resolves when the stream ends
 * (the server ended it, or `signal` aborted it); rejects when it cannot be opened or breaks.
 */
import { session } from '../auth/session';
import { API_BASE } from './client';

export interface StreamEvent {
  event: string;
  data: string;
}

export async function readEvents(path: string, onEvent: (e: StreamEvent) => void, signal: AbortSignal): Promise<void> {
  const token = session.token();
  const response = await fetch(`${API_BASE}${path}`, {
    headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    signal,
  });
  if (!response.ok || !response.body) throw new Error(`event stream ${path}: HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = parseFrame(buffer.slice(0, end));
      if (frame) onEvent(frame);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
  }
}

/** One frame's `event:` and `data:` lines (comments, `id:` and `retry:` are ignored); none for a heartbeat. */
export function parseFrame(frame: string): StreamEvent | undefined {
  let event = 'message';
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return data.length > 0 ? { event, data: data.join('\n') } : undefined;
}
