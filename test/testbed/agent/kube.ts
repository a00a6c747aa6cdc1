/**
 * A small raw-JSON Kubernetes REST client. The agent works with plain JSON objects (timestamps stay
 * strings), so it does its own requests instead of @kubernetes/client-node's generated API classes, whose
 * serializer turns times into Dates. It reads the kubeconfig itself too, so it does not depend on
 * client-node loading: client-node 2.0.1's undici 8 needs Node >= 22.19, and `hack/testbed` run by hand
 * starts the agents on the system's node (Node 20 on some machines; through npm it is the pinned Node 24).
 */
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import path from 'node:path';
import YAML from 'yaml';

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path}: HTTP ${code}: ${body.slice(0, 500)}`);
  }
  get reason(): string | undefined {
    try {
      return (JSON.parse(this.body) as { reason?: string }).reason;
    } catch {
      return undefined;
    }
  }
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
  timeoutMs?: number;
}

export type WatchEvent<T> = { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: T };

interface Named<T> {
  name: string;
  [k: string]: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}
type Entry = Record<string, string | boolean | undefined>;

/** Server, TLS and credentials of the current context of a kubeconfig (token or client certificate). */
export interface Credentials {
  server: URL;
  tls: Pick<https.RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized'>;
  token?: string;
}

export function loadKubeconfig(file: string): Credentials {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) as {
    'current-context'?: string;
    contexts?: Named<Entry>[];
    clusters?: Named<Entry>[];
    users?: Named<Entry>[];
  };
  const ctx = doc.contexts?.find((c) => c.name === doc['current-context'])?.context ?? {};
  const cluster = doc.clusters?.find((c) => c.name === ctx.cluster)?.cluster;
  const user = doc.users?.find((u) => u.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`${file}: no server in the current context`);
  const rel = (p: string): string => path.resolve(path.dirname(file), p);
  const blob = (data: unknown, ref: unknown): Buffer | undefined =>
    typeof data === 'string' ? Buffer.from(data, 'base64') : typeof ref === 'string' ? fs.readFileSync(rel(ref)) : undefined;
  const ca = blob(cluster['certificate-authority-data'], cluster['certificate-authority']);
  const cert = blob(user['client-certificate-data'], user['client-certificate']);
  const key = blob(user['client-key-data'], user['client-key']);
  const token = typeof user.token === 'string' ? user.token : typeof user.tokenFile === 'string' ? fs.readFileSync(rel(user.tokenFile), 'utf8').trim() : undefined;
  return {
    server: new URL(String(cluster.server)),
    tls: { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true },
    ...(token ? { token } : {}),
  };
}

export class Kube {
  private readonly creds: Credentials;
  readonly server: URL;

  constructor(kubeconfigPath: string) {
    this.creds = loadKubeconfig(kubeconfigPath);
    this.server = this.creds.server;
  }

  private options(method: string, path: string, query?: RequestOptions['query']): https.RequestOptions {
    const url = new URL(path, this.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const opts: https.RequestOptions = {
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers: { Accept: 'application/json', ...(this.creds.token ? { Authorization: `Bearer ${this.creds.token}` } : {}) },
      ...this.creds.tls,
    };
    return opts;
  }

  async request<T = unknown>(method: string, path: string, ro: RequestOptions = {}): Promise<T> {
    const opts = this.options(method, path, ro.query);
    const payload = ro.body === undefined ? undefined : Buffer.from(JSON.stringify(ro.body));
    if (payload) {
      opts.headers = { ...opts.headers, 'Content-Type': ro.contentType ?? 'application/json', 'Content-Length': payload.length };
    }
    return await new Promise<T>((resolve, reject) => {
      const mod = opts.protocol === 'http:' ? http : https;
      const req = mod.request(opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code >= 300) return reject(new ApiError(code, text, method, path));
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch (e) {
            reject(e as Error);
          }
        });
      });
      req.setTimeout(ro.timeoutMs ?? 30000, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('GET', path, { query });
  }
  post<T>(path: string, body: unknown, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>('POST', path, { body, query });
  }
  mergePatch<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body, contentType: 'application/merge-patch+json' });
  }
  /** Server-side apply (creates the object when absent). */
  apply<T>(path: string, body: unknown, fieldManager: string): Promise<T> {
    return this.request<T>('PATCH', path, {
      body,
      contentType: 'application/apply-patch+yaml', // JSON is YAML
      query: { fieldManager, force: true },
    });
  }
  delete<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('DELETE', path, { body });
  }

  /**
   * Streams a watch. Resolves when the server ends the watch (timeout) and rejects on transport errors;
   * `stop()` aborts it. Each line is one JSON event.
   */
  async watch<T>(
    path: string,
    query: RequestOptions['query'],
    onEvent: (ev: WatchEvent<T>) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const opts = this.options('GET', path, { ...query, watch: true, allowWatchBookmarks: true });
    await new Promise<void>((resolve, reject) => {
      const mod = opts.protocol === 'http:' ? http : https;
      const req = mod.request({ ...opts, signal }, (res) => {
        if ((res.statusCode ?? 0) !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => reject(new ApiError(res.statusCode ?? 0, Buffer.concat(chunks).toString(), 'WATCH', path)));
          return;
        }
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let nl: number;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl).trim();
            buf = buf.slice(nl + 1);
            if (line) onEvent(JSON.parse(line) as WatchEvent<T>);
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('watch aborted')));
      });
      req.on('error', (e) => (signal.aborted ? resolve() : reject(e)));
      req.end();
    });
  }
}

/** Minimal shapes of the objects the agent reads (raw JSON: times are strings). */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  creationTimestamp?: string;
  ownerReferences?: unknown[];
}
export interface List<T> {
  metadata: { resourceVersion: string };
  items: T[];
}

/** List, then watch from the list's resourceVersion; re-lists after errors and expired versions. */
export class Reflector<T extends { metadata: ObjectMeta }> {
  readonly items = new Map<string, T>();
  private readonly abort = new AbortController();
  private synced = false;
  private readonly syncWaiters: (() => void)[] = [];

  constructor(
    private readonly kube: Kube,
    private readonly path: string,
    private readonly onChange: (type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T) => void,
    private readonly query: RequestOptions['query'] = {},
    private readonly log: (msg: string) => void = () => {},
  ) {}

  static key(m: ObjectMeta): string {
    return m.namespace ? `${m.namespace}/${m.name}` : m.name;
  }

  start(): void {
    void this.loop();
  }
  stop(): void {
    this.abort.abort();
  }
  hasSynced(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((r) => this.syncWaiters.push(r));
  }

  private async loop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        const list = await this.kube.get<List<T>>(this.path, this.query);
        const seen = new Set<string>();
        for (const item of list.items) {
          const k = Reflector.key(item.metadata);
          seen.add(k);
          const prev = this.items.get(k);
          this.items.set(k, item);
          if (!prev || prev.metadata.resourceVersion !== item.metadata.resourceVersion) this.onChange(prev ? 'MODIFIED' : 'ADDED', item);
        }
        for (const [k, item] of [...this.items]) {
          if (!seen.has(k)) {
            this.items.delete(k);
            this.onChange('DELETED', item);
          }
        }
        if (!this.synced) {
          this.synced = true;
          this.syncWaiters.splice(0).forEach((w) => w());
        }
        let rv = list.metadata.resourceVersion;
        for (;;) {
          let expired = false;
          await this.kube.watch<T>(this.path, { ...this.query, resourceVersion: rv, timeoutSeconds: 300 }, (ev) => {
            if (ev.type === 'ERROR') {
              expired = true;
              return;
            }
            rv = ev.object.metadata.resourceVersion ?? rv;
            if (ev.type === 'BOOKMARK') return;
            const k = Reflector.key(ev.object.metadata);
            if (ev.type === 'DELETED') this.items.delete(k);
            else this.items.set(k, ev.object);
            this.onChange(ev.type, ev.object);
          }, this.abort.signal);
          if (expired || this.abort.signal.aborted) break;
        }
      } catch (e) {
        if (this.abort.signal.aborted) return;
        this.log(`watch ${this.path}: ${(e as Error).message}; re-listing`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }
}
