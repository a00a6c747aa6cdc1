/**
 * HTTP requests exactly as written (node:http): the Host header, the path with its dot segments and
 * percent-encodings kept, headers a browser sends (Origin, Sec-Fetch-Site). fetch() would normalise the
 * path and refuse to set Host.
 */
import { request } from 'node:http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, read field by field by the tests
export interface RawReply { status: number; headers: Record<string, string | string[] | undefined>; text: string; body: any }

export function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = text; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
