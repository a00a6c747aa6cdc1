/**
 * Starts the real server in-process on a loopback port with temp data and DAG directories, and gives a
 * small JSON client for it. Tests drive it over real HTTP.
 *
 * SVC_TEST_BACKEND=kubernetes (the api-kube jest project): the server runs the kubernetes backend in a
 * fresh namespace of the test bed, and dag() writes Dag resources instead of files (awaited before the
 * next request); an operator in the same process runs the runs' steps as Pods on the test bed
 * (SVC_TEST_OPERATOR=off: none, runs wait as they do without one).
 */
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { EngineLogger } from '../../src/core/ports/engine-ports.js';
import { startServer, type RunningServer } from '../../src/main/server.js';
import { consoleLogger } from '../../src/observability/console-logger.js';
import type { KubeDagStore } from '../../src/adapters/kube/dag-store.js';
import type { DagStore } from '../../src/core/ports/dag-store.js';

export interface Reply<T = any> { status: number; body: T; headers: Headers; text: string }

export class TestServer {
  readonly dir = mkdtempSync(join(tmpdir(), 'svc-srv-'));
  readonly dataDir = join(this.dir, 'data');
  readonly dagsDir = join(this.dir, 'dags');
  server!: RunningServer;
  /** The kubernetes backend's test bed namespace and DAG writes (SVC_TEST_BACKEND=kubernetes). */
  readonly kube = process.env.SVC_TEST_BACKEND === 'kubernetes' ? new KubeSide() : undefined;

  constructor(readonly env: Record<string, string> = {}) {
    mkdirSync(this.dagsDir, { recursive: true });
  }

  /** The configuration environment: the test's, plus the backend's. */
  protected async configEnv(): Promise<Record<string, string | undefined>> {
    return {
      PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh',
      SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: this.dataDir, SVC_DAGS_DIR: this.dagsDir,
      ...(this.kube ? await this.kube.env() : {}), ...this.env,
    };
  }

  async start(): Promise<this> {
    // Dags written before the start are in the server's first list, not in a watch event still on its way.
    await this.kube?.settled();
    const env = await this.configEnv();
    const config = loadConfig(env);
    const log = this.logger();
    this.server = await startServer(config, log);
    // On the kubernetes backend, runs execute as they do in a cluster: an operator runs their steps as Pods.
    if (this.kube && env.SVC_TEST_OPERATOR !== 'off') this.operator = await this.kube.operator(config, env, log);
    return this;
  }

  /** The server's (and its operator's) logger. */
  protected logger(): EngineLogger {
    return consoleLogger(process.env.SVC_TEST_LOG ?? 'error');
  }

  /** The in-process operator of the kubernetes backend (its steps run as Pods on the test bed). */
  operator: { close(): Promise<void>; identity: string } | undefined;

  async stop(): Promise<void> {
    await this.operator?.close();
    await this.server?.close();
    await this.kube?.close();
  }

  get url(): string {
    return this.server.url;
  }

  /**
   * Writes a DAG file into the DAGs directory (a Dag resource on the kubernetes backend: through the
   * server's own store once it runs, which sees its own writes at once, as a file write is seen).
   */
  dag(fileName: string, yaml: string): void {
    if (this.kube) this.kube.dag(fileName, yaml, this.server?.dagStore);
    else writeFileSync(join(this.dagsDir, `${fileName}.yaml`), yaml);
  }

  async req<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    await this.kube?.settled();
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

  /** The DAG text as stored (a file, or a Dag resource), undefined when there is none. */
  async storedDag(fileName: string): Promise<string | undefined> {
    if (this.kube) return this.kube.storedDag(fileName);
    const file = join(this.dagsDir, `${fileName}.yaml`);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  }

  /** The fileNames of every stored DAG. */
  async storedDagNames(): Promise<string[]> {
    if (this.kube) return this.kube.storedDagNames();
    return readdirSync(this.dagsDir).map((f) => f.replace(/\.yaml$/, ''));
  }

  /** The stored auth records of a kind as text (files; a Secret's data): what must never hold a secret. */
  async storedRecords(kind: 'users' | 'api-keys' | 'webhooks'): Promise<string> {
    if (this.kube) return this.kube.storedRecords(`svc-${kind}`);
    if (kind === 'webhooks') {
      const dir = join(this.dataDir, 'webhooks');
      return readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    }
    return readFileSync(join(this.dataDir, 'auth', `${kind}.json`), 'utf8');
  }

  get = <T = any>(path: string) => this.req<T>('GET', path);
  post = <T = any>(path: string, body?: unknown) => this.req<T>('POST', path, body ?? {});
}

export { eventually } from './wait.js';

/** The kubernetes side of a TestServer: a namespace with the CRDs, and Dags written as the tests ask. */
class KubeSide {
  private fixture?: Promise<{ namespace: string; dags: KubeDagStore; drop: (ns: string) => Promise<void> }>;
  private writes: Promise<unknown>[] = [];

  /** Loaded on first use: the embedded backend's tests never load the Kubernetes client. */
  private ready() {
    this.fixture ??= (async () => {
      const { kubeFixture, deleteNamespace } = await import('../kube/env.js');
      const { KubeDagStore } = await import('../../src/adapters/kube/dag-store.js');
      const f = await kubeFixture('api');
      return { namespace: f.namespace, dags: new KubeDagStore(f.kc, f.namespace), drop: deleteNamespace };
    })();
    return this.fixture;
  }

  /** Starts an operator for the namespace (short Lease and stop grace: tests) and waits until it leads. */
  async operator(config: Config, env: Record<string, string | undefined>, log: EngineLogger): Promise<{ close(): Promise<void>; identity: string }> {
    const { startOperator } = await import('../../src/main/operator.js');
    const { loadOperatorConfig } = await import('../../src/config/operator-config.js');
    const oc = loadOperatorConfig({ SVC_LEASE_SECONDS: '3', SVC_STOP_GRACE_SECONDS: '5', ...env }, config.version);
    const op = await startOperator(config, oc, log, () => log.error('the test operator lost its Lease', {}));
    await op.leading;
    return op;
  }

  async env(): Promise<Record<string, string>> {
    const { namespace } = await this.ready();
    return { SVC_BACKEND: 'kubernetes', SVC_NAMESPACE: namespace, SVC_KUBECONFIG: process.env.SVC_TEST_KUBECONFIG ?? '' };
  }

  private readonly lastOf = new Map<string, Promise<unknown>>();

  /** Written 25 at a time, and one after the other for the same DAG (the last write wins, as with files). */
  dag(fileName: string, yaml: string, store?: DagStore): void {
    const window = this.writes.length >= 25 ? this.writes[this.writes.length - 25] : undefined;
    const before = Promise.all([window, this.lastOf.get(fileName)].map((p) => p?.catch(() => undefined)));
    const write = before.then(() => this.ready()).then((f) => (store ?? f.dags).write(fileName, yaml));
    this.lastOf.set(fileName, write);
    this.writes.push(write);
  }

  async storedDag(fileName: string): Promise<string | undefined> {
    return (await (await this.ready()).dags.read(fileName))?.text;
  }

  async storedDagNames(): Promise<string[]> {
    return (await (await this.ready()).dags.list()).files.map((f) => f.fileName);
  }

  async storedRecords(secret: string): Promise<string> {
    const { kube } = (await import('../testbed/helpers.js')).cluster();
    const { namespace } = await this.ready();
    const s = await kube.get<{ data?: Record<string, string> }>(`/api/v1/namespaces/${namespace}/secrets/${secret}`);
    return Object.values(s.data ?? {}).map((v) => Buffer.from(v, 'base64').toString('utf8')).join('\n');
  }

  async settled(): Promise<void> {
    const pending = this.writes.splice(0);
    await Promise.all(pending);
  }

  async close(): Promise<void> {
    if (!this.fixture) return;
    const { namespace, dags, drop } = await this.fixture;
    await dags.close();
    await drop(namespace);
  }
}

/** A body in the error model of SPEC 7 with this code. */
export const err = (code: string) => ({ code, message: expect.any(String) });
