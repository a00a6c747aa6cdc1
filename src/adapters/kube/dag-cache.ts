/**
 * A watch-fed cache of one namespace's Dags (an informer of @kubernetes/client-node), so that listing
 * 1,000 Dags reads memory instead of LISTing the API each time.
 *
 * - Until the first LIST and WATCH succeed, and after a watch error until the restart does, the
 *   cache is not `synced` and its users ask the API.
 * - Read your own writes: a Dag this store wrote or deleted is `stale` until the watch delivers that
 *   very version (same resourceVersion; for a delete, the object gone or another uid). Versions are
 *   compared for equality only (they are opaque), so a stale mark also ends after STALE_MS, by which
 *   time the watch has long caught up or failed (and the cache is then not synced).
 */
import { CustomObjectsApi, makeInformer, type Informer, type KubeConfig, type KubernetesListObject, type KubernetesObject, type ObjectCache } from '@kubernetes/client-node';
import { GROUP, VERSION } from './crds.js';
import type { DagObject } from './dag-object.js';

const STALE_MS = 10_000;
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 30_000;

type DagInformer = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;

/** What the watch must show before the cached copy of a Dag is as new as this store's last write. */
type Expect = { until: number } & ({ resourceVersion: string } | { deletedUid: string });

export class DagCache {
  private readonly informer: DagInformer;
  private readonly expected = new Map<string, Expect>();
  private isSynced = false;
  private failed = false;
  private closed = false;
  private restartMs = RESTART_MIN_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Settles when the first start attempt is over (synced or not). */
  readonly started: Promise<void>;
  /** The latest start attempt (close() waits for it: it may open a watch after a stop). */
  private starting: Promise<void>;

  constructor(kc: KubeConfig, private readonly namespace: string, private readonly now: () => number = Date.now) {
    const api = kc.makeApiClient(CustomObjectsApi);
    const where = { group: GROUP, version: VERSION, namespace, plural: 'dags' };
    const listFn = () => api.listNamespacedCustomObject(where) as Promise<KubernetesListObject<KubernetesObject>>;
    this.informer = makeInformer(kc, `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/dags`, listFn);
    this.informer.on('error', () => this.onError());
    this.started = this.starting = this.start();
  }

  get synced(): boolean {
    return this.isSynced && !this.closed;
  }

  private async start(): Promise<void> {
    this.failed = false;
    try {
      await this.informer.start();
    } catch {
      this.failed = true;
    }
    // A close() during the LIST stopped nothing yet: the informer opened its watch after it.
    if (this.closed) return this.informer.stop();
    if (this.failed) return this.onError();
    this.isSynced = true;
    this.restartMs = RESTART_MIN_MS;
  }

  /** The informer gives up on an error (a failed LIST, a refused WATCH): restart it with backoff. */
  private onError(): void {
    this.failed = true;
    this.isSynced = false;
    if (this.closed || this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.closed) this.starting = this.start();
    }, this.restartMs);
    this.restartTimer.unref();
    this.restartMs = Math.min(this.restartMs * 2, RESTART_MAX_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.isSynced = false;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
    await this.starting;
  }

  list(): DagObject[] {
    return this.informer.list(this.namespace) as DagObject[];
  }

  get(name: string): DagObject | undefined {
    return this.informer.get(name, this.namespace) as DagObject | undefined;
  }

  /** This store wrote `obj`: its cached copy is stale until the watch brings this version. */
  wrote(obj: DagObject): void {
    const rv = obj.metadata.resourceVersion;
    if (rv) this.expected.set(obj.metadata.name, { resourceVersion: rv, until: this.now() + STALE_MS });
  }

  /** This store deleted the Dag of uid `uid`. */
  deleted(name: string, uid: string | undefined): void {
    this.expected.set(name, { deletedUid: uid ?? '', until: this.now() + STALE_MS });
  }

  /** Names whose cached copy may be older than this store's own last write to them. */
  stale(): string[] {
    return [...this.expected.keys()].filter((name) => this.isStale(name));
  }

  isStale(name: string): boolean {
    const e = this.expected.get(name);
    if (!e) return false;
    if (e.until > this.now() && !this.caughtUp(name, e)) return true;
    this.expected.delete(name);
    return false;
  }

  private caughtUp(name: string, e: Expect): boolean {
    const cached = this.get(name);
    if ('resourceVersion' in e) return cached?.metadata.resourceVersion === e.resourceVersion;
    return cached === undefined || cached.metadata.uid !== e.deletedUid;
  }
}
