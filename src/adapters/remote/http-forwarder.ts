/**
 * RemoteForwarder over node:http(s). No overall response timeout (a forwarded start-sync may wait up
 * to its own timeout); only connecting is bounded, and the caller's signal aborts the request.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DomainError } from '../../core/errors.js';
import type { ForwardRequest, ForwardResponse, RemoteForwarder } from '../../core/ports/remote-forwarder.js';

const KEEP = ['content-type', 'content-disposition', 'www-authenticate', 'cache-control'];

export class HttpForwarder implements RemoteForwarder {
  constructor(private readonly connectTimeoutMs = 10_000) {}

  forward(f: ForwardRequest): Promise<ForwardResponse> {
    const url = new URL(f.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = { ...f.headers, ...(f.body ? { 'content-length': String(f.body.byteLength) } : {}) };
    return new Promise((resolve, reject) => {
      const fail = (why: string) => reject(new DomainError('service_unavailable', `remote node ${url.origin} is unreachable: ${why}`));
      const req = send(url, { method: f.method, headers, ...(f.signal ? { signal: f.signal } : {}) }, (res: IncomingMessage) => {
        resolve({ status: res.statusCode ?? 502, headers: pick(res), body: res });
      });
      const timer = setTimeout(() => req.destroy(new Error(`no connection within ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs);
      req.once('socket', (s) => (s.connecting ? s.once('connect', () => clearTimeout(timer)) : clearTimeout(timer)));
      req.once('response', () => clearTimeout(timer));
      req.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        fail(e.code ?? e.message);
      });
      req.end(f.body);
    });
  }
}

function pick(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of KEEP) {
    const v = res.headers[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}
