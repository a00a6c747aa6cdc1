/**
 * The step Pods of one namespace as the operator sees them: a label-filtered informer (only step Pods,
 * and they are deleted once harvested: memory follows the active executions), and waiters for an
 * execution's Pod to finish or disappear.
 */
import { CoreV1Api, makeInformer, type Informer, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { STEP_SELECTOR } from './pod-spec.js';

type Listener = (pod: V1Pod | undefined) => void;

const MAX_BACKOFF_MS = 30_000;

export class PodWatch {
  private readonly informer: Informer<V1Pod>;
  private readonly pods = new Map<string, V1Pod>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private synced = false;
  private closed = false;
  private backoffMs = 0;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(kc: KubeConfig, private readonly namespace: string, private readonly onError: (e: unknown) => void = () => undefined) {
    const api = kc.makeApiClient(CoreV1Api);
    this.informer = makeInformer(kc, `/api/v1/namespaces/${namespace}/pods`, () => api.listNamespacedPod({ namespace, labelSelector: STEP_SELECTOR }), STEP_SELECTOR);
    this.informer.on('add', (p) => this.saw(p));
    this.informer.on('update', (p) => this.saw(p));
    this.informer.on('delete', (p) => this.gone(p));
    this.informer.on('error', (e) => this.failed(e));
  }

  async start(): Promise<void> {
    await this.informer.start();
    this.synced = true;
    this.backoffMs = 0;
  }

  get isSynced(): boolean {
    return this.synced;
  }

  get(name: string): V1Pod | undefined {
    return this.pods.get(name);
  }

  size(): number {
    return this.pods.size;
  }

  /** Calls `fn` with each new state of the Pod, and undefined when it is deleted. Returns the unsubscribe. */
  on(name: string, fn: Listener): () => void {
    const set = this.listeners.get(name) ?? new Set<Listener>();
    set.add(fn);
    this.listeners.set(name, set);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(name);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.informer.stop();
  }

  private saw(p: V1Pod): void {
    const name = p.metadata?.name;
    if (!name) return;
    this.pods.set(name, p);
    for (const fn of [...(this.listeners.get(name) ?? [])]) fn(p);
  }

  private gone(p: V1Pod): void {
    const name = p.metadata?.name;
    if (!name) return;
    this.pods.delete(name);
    for (const fn of [...(this.listeners.get(name) ?? [])]) fn(undefined);
  }

  /** The watch broke: restart it with backoff (the informer lists again, reporting what changed). */
  private failed(e: unknown): void {
    if (this.closed) return;
    this.onError(e);
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs ? this.backoffMs * 2 : 500);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      if (!this.closed) this.start().catch((err: unknown) => this.failed(err));
    }, this.backoffMs);
  }
}
