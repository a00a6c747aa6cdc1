/**
 * A small OpenAI-compatible chat completions server on loopback, for the `local` provider of chat steps
 * (and the chat example): POST /v1/chat/completions, streaming (SSE) and not. What it answers depends
 * on the model asked for:
 * - any model: "You said: <last user message>" (in three streamed pieces when streaming);
 * - `flaky`: 503 once (with Retry-After: 0), then as above;
 * - `denied`: 401 with an OpenAI-style error body;
 * - `long`: as above, ending with finish_reason `length` (the token limit);
 * - `stall`: streams one piece, then never ends (`stalled` counts those the client closed).
 * Every request is recorded (headers and parsed body).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  headers: IncomingMessage['headers'];
  body: { model: string; stream?: boolean; messages: Array<{ role: string; content: string }>; [k: string]: unknown };
}

export interface ChatServer {
  url: string;
  requests: ChatRequest[];
  /** Stalled replies whose connection the client closed. */
  stalled: { closed: number };
  close(): void;
}

function chunk(model: string, content: string | undefined, finish: string | null = null): string {
  const delta = content !== undefined ? { content } : {};
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function answer(req: ChatRequest, res: ServerResponse, flaky: Set<string>, stalled: { closed: number }): void {
  const { model, stream, messages } = req.body;
  if (model === 'denied') {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Invalid API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    return;
  }
  const key = JSON.stringify(messages);
  if (model === 'flaky' && !flaky.has(key)) {
    flaky.add(key);
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
    res.end(JSON.stringify({ error: { message: 'model is loading', type: 'server_error' } }));
    return;
  }
  const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const text = `You said: ${last}`;
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (model === 'stall') {
    res.on('close', () => { stalled.closed++; });
    res.write(chunk(model, 'thinking about it'));
    return;
  }
  const third = Math.ceil(text.length / 3);
  res.write(chunk(model, undefined));
  for (let i = 0; i < text.length; i += third) res.write(chunk(model, text.slice(i, i + third)));
  res.write(chunk(model, undefined, model === 'long' ? 'length' : 'stop'));
  res.end('data: [DONE]\n\n');
}

export async function startChatServer(): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  const flaky = new Set<string>();
  const stalled = { closed: 0 };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => { raw += c.toString(); });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') { res.writeHead(404); res.end(); return; }
      const r: ChatRequest = { headers: req.headers, body: JSON.parse(raw) as ChatRequest['body'] };
      requests.push(r);
      answer(r, res, flaky, stalled);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests, stalled,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}
