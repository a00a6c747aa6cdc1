/**
 * A small OpenAI-compatible chat completions server on loopback, for the `local` provider of chat steps
 * (and the chat example): POST /v1/chat/completions, streaming (SSE) and not. What it answers depends
 * on the model asked for:
 * - any model: "You said: <last user message>" (in three streamed pieces when streaming);
 * - `flaky`: 503 once (with Retry-After: 0), then as above;
 * - `denied`: 401 with an OpenAI-style error body;
 * - `long`: as above, ending with finish_reason `length` (the token limit);
 * - `stall`: streams one piece, then never ends (`stalled` counts those the client closed).
 * Tool calling, when the request offers tools (tool_choice other than none):
 * - `tooly`: calls the tools its last user message names, one line each (`call NAME {"ARG": "v"}`), or
 *   else every tool offered, all in one reply (arguments streamed in pieces); once given the results,
 *   answers "Got N results.";
 * - `loopy`: calls the first tool (no arguments) every time; with tool_choice none, answers "I give up.";
 * - `stubborn`: like loopy, but ignores tool_choice none.
 * Every request is recorded (headers and parsed body).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  headers: IncomingMessage['headers'];
  body: {
    model: string; stream?: boolean; messages: Array<{ role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }>;
    tools?: Array<{ function: { name: string } }>; tool_choice?: string; [k: string]: unknown;
  };
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

interface Call { name: string; args: string }

/** The calls a tool-calling model makes now, per the rules above; none when it should answer in text. */
function toolCalls(body: ChatRequest['body']): Call[] {
  const { model, messages, tools } = body;
  const offered = tools ?? [];
  if (offered.length === 0 || (body.tool_choice === 'none' && model !== 'stubborn')) return [];
  if (model === 'loopy' || model === 'stubborn') return [{ name: offered[0]!.function.name, args: '{}' }];
  if (model !== 'tooly' || messages.at(-1)?.role === 'tool') return [];
  const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const named = last.split('\n').flatMap((line) => {
    const m = /^call (\S+)\s*(.*)$/.exec(line.trim());
    return m ? [{ name: m[1]!, args: m[2]! || '{}' }] : [];
  });
  return named.length > 0 ? named : offered.map((t) => ({ name: t.function.name, args: '{}' }));
}

function callChunks(model: string, calls: Call[]): string {
  const c = (delta: unknown, finish: string | null = null): string => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  let out = '';
  calls.forEach((call, index) => {
    const half = Math.ceil(call.args.length / 2);
    out += c({ role: 'assistant', tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] });
    out += c({ tool_calls: [{ index, function: { arguments: call.args.slice(0, half) } }] });
    out += c({ tool_calls: [{ index, function: { arguments: call.args.slice(half) } }] });
  });
  return out + c({}, 'tool_calls') + 'data: [DONE]\n\n';
}

function answerWithCalls(req: ChatRequest, res: ServerResponse, calls: Call[]): void {
  const { model, stream } = req.body;
  if (stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(callChunks(model, calls));
    return;
  }
  const tool_calls = calls.map((call, i) => ({ id: `call_${i}`, type: 'function', function: { name: call.name, arguments: call.args } }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls }, finish_reason: 'tool_calls' }] }));
}

/** The text a model answers with: what it was told, or what tools gave it. */
function replyText(body: ChatRequest['body']): string {
  const { model, messages } = body;
  if ((model === 'loopy' || model === 'stubborn') && body.tool_choice === 'none') return 'I give up.';
  const results = messages.filter((m) => m.role === 'tool').length;
  if (model === 'tooly' && messages.at(-1)?.role === 'tool') return `Got ${results} results.`;
  const last = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  return `You said: ${last}`;
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
  const calls = toolCalls(req.body);
  if (calls.length > 0) {
    answerWithCalls(req, res, calls);
    return;
  }
  const text = replyText(req.body);
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
