/**
 * The kubelet's HTTPS endpoints the API server proxies to: /containerLogs (kubectl logs, client-node Log)
 * and /exec over WebSocket (v5.channel.k8s.io / v4.channel.k8s.io: kubectl exec, client-node Exec).
 * Only clients with a certificate from the test bed's CA (the API server's kubelet client cert) get in.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveLog } from './logs.js';
import type { PodRunner } from './runtime.js';

export interface ServerDeps {
  tls: { cert: string; key: string; ca: string };
  findPod: (namespace: string, name: string) => PodRunner | undefined;
  track: (pgid: number) => void;
  log: (msg: string) => void;
}

const truthy = (v: string | null): boolean => v === '1' || v === 'true';
const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

function fail(res: http.ServerResponse, code: number, message: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(message);
}

function status(ok: boolean, message?: string, exitCode?: number): string {
  if (ok) return JSON.stringify({ metadata: {}, status: 'Success' });
  if (exitCode !== undefined) {
    return JSON.stringify({
      metadata: {},
      status: 'Failure',
      message: `command terminated with non-zero exit code: exit status ${exitCode}`,
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
    });
  }
  return JSON.stringify({ metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500 });
}

export class KubeletServer {
  private readonly server: https.Server;
  private readonly wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (offered) => PROTOCOLS.find((p) => offered.has(p)) ?? false,
  });

  constructor(private readonly deps: ServerDeps) {
    this.server = https.createServer(
      {
        cert: fs.readFileSync(deps.tls.cert),
        key: fs.readFileSync(deps.tls.key),
        ca: fs.readFileSync(deps.tls.ca),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => void this.handle(req, res).catch((e: Error) => {
        deps.log(`kubelet server: ${e.stack ?? e.message}`);
        if (!res.headersSent) fail(res, 500, e.message);
        else res.end();
      }),
    );
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        const addr = this.server.address();
        resolve(typeof addr === 'object' && addr ? addr.port : port);
      });
    });
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (url.pathname === '/healthz') return void res.end('ok');
    if (parts[0] === 'containerLogs' && parts.length === 4 && req.method === 'GET') {
      return this.logs(parts[1] ?? '', parts[2] ?? '', parts[3] ?? '', url.searchParams, res);
    }
    if (parts[0] === 'exec') return fail(res, 400, 'exec needs a WebSocket upgrade (v5.channel.k8s.io); SPDY is not supported by the test bed');
    fail(res, 404, `${url.pathname}: not served by the svc test bed agent`);
  }

  private async logs(ns: string, name: string, container: string, q: URLSearchParams, res: http.ServerResponse): Promise<void> {
    const pod = this.deps.findPod(ns, name);
    if (!pod) return fail(res, 404, `pod "${name}" in namespace "${ns}" not found on this node`);
    const c = pod.container(container);
    if (!c) return fail(res, 400, `container ${container} is not valid for pod ${name}`);
    const previous = truthy(q.get('previous'));
    let instance = c.restartCount;
    if (previous) {
      if (c.restartCount === 0) return fail(res, 400, `previous terminated container "${container}" in pod "${name}" not found`);
      instance = c.restartCount - 1;
    }
    const file = pod.logPath(container, instance);
    if (!fs.existsSync(file)) {
      const reason = c.state.waiting?.reason ?? 'ContainerCreating';
      return fail(res, 400, `container "${container}" in pod "${name}" is waiting to start: ${reason}`);
    }
    const sinceSeconds = q.get('sinceSeconds');
    const sinceTime = q.get('sinceTime') ?? (sinceSeconds ? new Date(Date.now() - Number(sinceSeconds) * 1000).toISOString() : undefined);
    const tail = q.get('tailLines');
    const limit = q.get('limitBytes');
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.flushHeaders();
    await serveLog(
      file,
      {
        follow: truthy(q.get('follow')) && !previous,
        timestamps: truthy(q.get('timestamps')),
        ...(tail !== null && Number(tail) >= 0 ? { tailLines: Number(tail) } : {}),
        ...(sinceTime ? { sinceTime } : {}),
        ...(limit ? { limitBytes: Number(limit) } : {}),
      },
      res,
      () => c.restartCount !== instance || !c.running,
    );
    res.end();
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const reject = (code: number, message: string): void => {
      socket.end(`HTTP/1.1 ${code} ${code === 404 ? 'Not Found' : 'Bad Request'}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
    };
    if (parts[0] !== 'exec' || parts.length !== 4) return reject(404, `${url.pathname}: only /exec is served over WebSocket`);
    const [, ns = '', name = '', container = ''] = parts;
    const pod = this.deps.findPod(ns, name);
    if (!pod) return reject(404, `pod "${name}" in namespace "${ns}" not found on this node`);
    const target = pod.execTarget(container);
    if (typeof target === 'string') return reject(400, target);
    const command = url.searchParams.getAll('command');
    if (command.length === 0) return reject(400, 'you must specify at least one command for the container');
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
    if (!PROTOCOLS.some((p) => offered.includes(p))) return reject(400, `unsupported WebSocket subprotocols ${offered.join(',')}; the test bed speaks ${PROTOCOLS.join(', ')}`);
    const q = url.searchParams;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.exec(ws, command, target, {
        // The API server passes the streams as input/output/error (kubelet parameter names).
        stdin: truthy(q.get('input') ?? q.get('stdin')),
        stdout: truthy(q.get('output') ?? q.get('stdout')),
        stderr: truthy(q.get('error') ?? q.get('stderr')),
      });
    });
  }

  private exec(ws: WebSocket, command: string[], target: { env: Record<string, string>; cwd: string }, io: { stdin: boolean; stdout: boolean; stderr: boolean }): void {
    const v5 = ws.protocol === 'v5.channel.k8s.io';
    const send = (channel: number, data: Buffer | string): void => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), Buffer.isBuffer(data) ? data : Buffer.from(data)]));
    };
    // Like the kubelet: an empty frame on the lowest writable channel tells the client the streams are up.
    send(io.stdout ? 1 : io.stderr ? 2 : 3, Buffer.alloc(0));
    const finish = (payload: string): void => {
      send(3, payload);
      ws.close(1000);
    };
    const proc = spawn(command[0] ?? '', command.slice(1), {
      cwd: target.cwd,
      env: target.env,
      detached: true,
      stdio: [io.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    let spawnError: Error | undefined;
    proc.on('error', (e) => {
      spawnError = e;
    });
    if (proc.pid) this.deps.track(proc.pid);
    proc.stdout?.on('data', (d: Buffer) => io.stdout && send(1, d));
    proc.stderr?.on('data', (d: Buffer) => io.stderr && send(2, d));
    proc.stdin?.on('error', () => {});
    ws.on('message', (data: Buffer) => {
      if (data.length === 0) return;
      const channel = data[0];
      if (v5 && channel === 255) {
        if (data[1] === 0) proc.stdin?.end();
        return;
      }
      if (channel === 0 && data.length > 1) proc.stdin?.write(data.subarray(1));
      // channel 4 (terminal resize) has no meaning without a TTY
    });
    ws.on('close', () => {
      if (proc.exitCode === null && proc.signalCode === null && proc.pid) {
        try {
          process.kill(-proc.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    });
    proc.on('close', (code, signal) => {
      if (spawnError) {
        const msg = (spawnError as NodeJS.ErrnoException).code === 'ENOENT' ? `exec: "${command[0]}": executable file not found in $PATH` : spawnError.message;
        return finish(status(false, `failed to exec in container: ${msg}`));
      }
      const exitCode = code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 0);
      finish(exitCode === 0 ? status(true) : status(false, undefined, exitCode));
    });
  }
}
