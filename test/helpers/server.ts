/**
 * Starts the real server in-process on a loopback port with temp data and DAG directories, and gives a
 * small JSON client for it. Tests drive it over real HTTP.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/main/server.js';
import { consoleLogger } from '../../src/observability/console-logger.js';

export interface Reply<T = any> { status: number; body: T; headers: Headers; text: string }

export class TestServer {
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-srv-'));
  readonly dataDir = join(this.dir, 'data');
  readonly dagsDir = join(this.dir, 'dags');
  server!: RunningServer;

  constructor(readonly env: Record<string, string> = {}) {
    mkdirSync(this.dagsDir, { recursive: true });
  }

  async start(): Promise<this> {
    const config = loadConfig({
      PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh',
      SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: this.dataDir, SVC_DAGS_DIR: this.dagsDir, ...this.env,
    });
    this.server = await startServer(config, consoleLogger(process.env.SVC_TEST_LOG ?? 'error'));
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.close();
  }

  get url(): string {
    return this.server.url;
  }

  /** Writes a DAG file into the DAGs directory. */
  dag(fileName: string, yaml: string): void {
    writeFileSync(join(this.dagsDir, `${fileName}.yaml`), yaml);
  }

  async req<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.url}/api/v2${path}`, init);
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  get = <T = any>(path: string) => this.req<T>('GET', path);
  post = <T = any>(path: string, body?: unknown) => this.req<T>('POST', path, body ?? {});
}

export { eventually } from './wait.js';

/** A body in the error model of SPEC 7 with this code. */
export const err = (code: string) => ({ code, message: expect.any(String) });
