/**
 * The namespaces that hold Dags, from one cluster-wide watch: how an operator with
 * `SVC_WATCH_NAMESPACES=all` finds the namespaces it drives runs in. A run needs a Dag of its namespace
 * (REST starts, schedules and kubectl requests all name one), so a namespace without Dags has nothing
 * to drive. Each namespace is reported once, when its first Dag is seen, if its labels match the
 * selector then (a namespace relabelled later is not looked at again until the operator restarts).
 */
import { CoreV1Api, CustomObjectsApi, makeInformer, type Informer, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { GROUP, VERSION } from './crds.js';

const MAX_BACKOFF_MS = 30_000;

export interface DagNamespacesOptions {
  /** A label selector of Namespaces: only those matching it are reported (default: every one). */
  selector?: string;
  onNamespace(namespace: string): void;
  onError(e: unknown): void;
}

export class DagNamespaces {
  private readonly informer: Informer<KubernetesObject>;
  private readonly core: CoreV1Api;
  private readonly seen = new Set<string>();
  private closed = false;
  private backoffMs = 0;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(kc: KubeConfig, private readonly o: DagNamespacesOptions) {
    const api = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
    const list = () => api.listClusterCustomObject({ group: GROUP, version: VERSION, plural: 'dags' }) as Promise<KubernetesListObject<KubernetesObject>>;
    this.informer = makeInformer(kc, `/apis/${GROUP}/${VERSION}/dags`, list);
    this.informer.on('add', (d) => this.saw(d.metadata?.namespace));
    this.informer.on('error', (e) => this.failed(e));
  }

  /** Starts the watch; a failure (no rights yet, the API away) is reported and retried with backoff. */
  start(): void {
    this.informer.start().then(() => { this.backoffMs = 0; }, (e: unknown) => this.failed(e));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  private saw(namespace: string | undefined): void {
    if (!namespace || this.seen.has(namespace)) return;
    this.seen.add(namespace);
    this.matches(namespace).then((yes) => { if (yes) this.o.onNamespace(namespace); }, (e: unknown) => {
      // Asked again at the next Dag of that namespace, or after the watch's restart.
      this.seen.delete(namespace);
      this.o.onError(e);
    });
  }

  /** The API server evaluates the selector: the namespace is listed only when its labels match. */
  private async matches(namespace: string): Promise<boolean> {
    if (!this.o.selector) return true;
    const found = await this.core.listNamespace({ labelSelector: this.o.selector, fieldSelector: `metadata.name=${namespace}` });
    return found.items.length > 0;
  }

  /** The watch broke: restart it with backoff (the informer lists again, reporting every Dag as added). */
  private failed(e: unknown): void {
    if (this.closed) return;
    this.o.onError(e);
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs ? this.backoffMs * 2 : 500);
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (!this.closed) this.start();
    }, this.backoffMs);
  }
}
