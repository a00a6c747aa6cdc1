/**
 * Which Nodes stopped heartbeating: the kubelet of each Node renews its Lease in kube-node-lease; a Lease
 * not renewed for its own duration (at least MIN_TIMEOUT_MS) means the Node is gone, and the steps bound
 * to it will not finish (no kubelet reports them). Polled: one LIST every few seconds, whatever the load.
 */
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';

const NODE_LEASES = 'kube-node-lease';
/** SPEC 3.4: a worker silent for more than 15 s is unhealthy. */
const MIN_TIMEOUT_MS = 15_000;

export class NodeLeases {
  private readonly api: CoordinationV1Api;
  private readonly dead = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(kc: KubeConfig, private readonly everyMs = 3000, private readonly onError: (e: unknown) => void = () => undefined) {
    this.api = kc.makeApiClient(CoordinationV1Api);
  }

  start(): void {
    const poll = (): void => {
      void this.poll().catch(this.onError).finally(() => { if (this.timer) this.timer = setTimeout(poll, this.everyMs); });
    };
    this.timer = setTimeout(poll, 0);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Why the Node is considered gone, or undefined while it heartbeats (or is unknown). */
  deadReason(node: string | undefined): string | undefined {
    return node ? this.dead.get(node) : undefined;
  }

  /** Called after each poll that changed which Nodes are gone. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private async poll(): Promise<void> {
    const leases = await this.api.listNamespacedLease({ namespace: NODE_LEASES });
    const now = Date.now();
    let changed = false;
    const seen = new Set<string>();
    for (const l of leases.items) {
      const name = l.metadata?.name;
      const renewed = l.spec?.renewTime ? new Date(l.spec.renewTime).getTime() : NaN;
      if (!name || Number.isNaN(renewed)) continue;
      seen.add(name);
      const timeout = Math.max(MIN_TIMEOUT_MS, (l.spec?.leaseDurationSeconds ?? 40) * 1000);
      const why = now - renewed > timeout ? `node ${name} stopped heartbeating (its Lease was last renewed ${Math.round((now - renewed) / 1000)} s ago)` : undefined;
      if (why && !this.dead.has(name)) { this.dead.set(name, why); changed = true; }
      if (!why && this.dead.delete(name)) changed = true;
    }
    for (const name of [...this.dead.keys()]) if (!seen.has(name)) { this.dead.delete(name); changed = true; }
    if (changed) for (const fn of this.listeners) fn();
  }
}
