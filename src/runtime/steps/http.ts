/**
 * The `http` step type (SPEC 2.6): `command` is `<METHOD> <url>`; config headers, body (a string, or
 * an object sent as JSON), query, timeout (seconds), silent (print the body only), skipTLSVerify.
 * Without silent the status line and headers come first, then a blank line and the body (the reference
 * prints the same). A status of 400 or more fails the step with the status in the error.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StepError, text, type StepRunner } from './runner.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE']);

interface HttpCall {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  insecure: boolean;
}

export const runHttp: StepRunner = async ({ req, io, signal }) => {
  const call = parseCall(req.commands[0], req.config);
  const res = await send(call, signal);
  if (req.config.silent !== true) {
    io.out(`HTTP/${res.httpVersion} ${res.statusCode ?? 0} ${res.statusMessage ?? ''}\n`);
    for (let i = 0; i < res.rawHeaders.length; i += 2) io.out(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\n`);
    io.out('\n');
  }
  await streamBody(res, io.out);
  const status = res.statusCode ?? 0;
  if (status >= 400) return { exitCode: 1, error: `http status ${status} ${res.statusMessage ?? ''}`.trim() };
  return { exitCode: 0 };
};

export function parseCall(command: string | undefined, config: Record<string, unknown>): HttpCall {
  const m = /^\s*(\S+)\s+(\S+)\s*$/.exec(command ?? '');
  if (!m) throw new StepError('http step: command must be "<METHOD> <url>", for example "GET https://example.com/"');
  const method = m[1]!.toUpperCase();
  if (!METHODS.has(method)) throw new StepError(`http step: unknown method "${m[1]}" (one of ${[...METHODS].join(', ')})`);
  let url: URL;
  try {
    url = new URL(m[2]!);
  } catch {
    throw new StepError(`http step: "${m[2]}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new StepError(`http step: ${url.protocol} URLs are not supported (http or https)`);
  for (const [k, v] of Object.entries(stringMap(config, 'query'))) url.searchParams.append(k, v);
  const headers = stringMap(config, 'headers');
  const body = bodyOf(config.body, headers);
  const timeout = Number(config.timeout ?? 0);
  if (!Number.isFinite(timeout) || timeout < 0) throw new StepError('http step: config.timeout must be a number of seconds');
  return { method, url, headers, ...(body !== undefined ? { body } : {}), timeoutMs: timeout * 1000, insecure: config.skipTLSVerify === true };
}

function stringMap(config: Record<string, unknown>, field: string): Record<string, string> {
  const v = config[field];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new StepError(`http step: config.${field} must be a map of names to values`);
  return Object.fromEntries(Object.entries(v).map(([k]) => [k, text(v as Record<string, unknown>, k) ?? '']));
}

/** A string body as written; an object or list as JSON (with a JSON content type unless one is set). */
function bodyOf(body: unknown, headers: Record<string, string>): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (typeof body !== 'object') return String(body);
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  return JSON.stringify(body);
}

function send(call: HttpCall, signal: AbortSignal): Promise<IncomingMessage> {
  const request = call.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const r = request(call.url, {
      method: call.method, headers: call.headers, signal,
      ...(call.timeoutMs > 0 ? { timeout: call.timeoutMs } : {}),
      ...(call.insecure ? { rejectUnauthorized: false } : {}),
    }, resolve);
    r.on('timeout', () => r.destroy(new StepError(`http step: no response within ${call.timeoutMs / 1000}s (config.timeout)`)));
    r.on('error', (e) => reject(e instanceof StepError ? e : new StepError(`http step: ${call.method} ${call.url.origin}${call.url.pathname}: ${describe(e)}`)));
    r.end(call.body);
  });
}

function describe(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code && !e.message.includes(code) ? `${code} ${e.message}` : e.message;
}

/** The body goes to the step's stdout as it arrives (a large download never sits in memory whole). */
function streamBody(res: IncomingMessage, out: (text: string) => void): Promise<void> {
  res.setEncoding('utf8');
  res.on('data', out);
  return new Promise((resolve, reject) => {
    res.on('end', resolve);
    res.on('error', (e) => reject(new StepError(`http step: the response broke off: ${e.message}`)));
  });
}
