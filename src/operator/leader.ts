/**
 * Lease-based leader election (coordination.k8s.io/v1): of all operator replicas one leads, the others
 * wait and take over within about a lease duration of the leader's death. The leader renews its Lease
 * every `renewMs`; a Lease not renewed for `leaseSeconds` is expired and any candidate takes it over with
 * compare-and-swap on resourceVersion, so two candidates never both win. A leader that cannot renew
 * before its Lease expires has lost: `onLost` runs (the operator then exits; Kubernetes restarts it).
 */
import { ApiException, CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseSeconds: number;
  renewMs: number;
  /** Between attempts of a candidate. */
  retryMs: number;
  onError?(e: unknown): void;
}

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private lastRenew = 0;

  constructor(kc: KubeConfig, private readonly o: LeaderOptions) {
    this.api = kc.makeApiClient(CoordinationV1Api);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Campaigns until this process leads (resolves then), keeps renewing after, and calls onLost if it stops leading. */
  async lead(onLost: () => void): Promise<void> {
    while (!this.stopped) {
      if (await this.tryAcquire().catch((e: unknown) => this.failed(e))) {
        this.leading = true;
        this.lastRenew = Date.now();
        this.schedule(onLost);
        return;
      }
      await sleep(this.o.retryMs);
    }
  }

  /** Gives the Lease up (a clean shutdown: the next replica need not wait for it to expire). */
  async resign(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity !== this.o.identity) return;
      await this.api.replaceNamespacedLease({ name: this.o.name, namespace: this.o.namespace, body: { ...lease, spec: { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1 } } });
    } catch (e) {
      this.o.onError?.(e);
    }
  }

  private schedule(onLost: () => void): void {
    this.timer = setTimeout(() => void this.renew(onLost), this.o.renewMs);
  }

  private async renew(onLost: () => void): Promise<void> {
    if (this.stopped) return;
    const ok = await this.tryAcquire().catch((e: unknown) => this.failed(e));
    if (ok) this.lastRenew = Date.now();
    // Another holder: lost now. An API failure or a conflicting write: lost once the Lease would have expired.
    if (ok === false || (!ok && Date.now() - this.lastRenew > (this.o.leaseSeconds * 1000) - this.o.renewMs)) {
      this.leading = false;
      onLost();
      return;
    }
    this.schedule(onLost);
  }

  private failed(e: unknown): undefined {
    this.o.onError?.(e);
    return undefined;
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ name: this.o.name, namespace: this.o.namespace });
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return undefined;
      throw e;
    }
  }

  /** True: this process holds the Lease now. False: another live holder has it. Null: a conflicting write (try again). Throws on API failures. */
  private async tryAcquire(): Promise<boolean | null> {
    const now = new V1MicroTime();
    const lease = await this.read();
    const mine = { holderIdentity: this.o.identity, leaseDurationSeconds: this.o.leaseSeconds, renewTime: now };
    if (!lease) {
      try {
        await this.api.createNamespacedLease({ namespace: this.o.namespace, body: { metadata: { name: this.o.name }, spec: { ...mine, acquireTime: now, leaseTransitions: 0 } } });
        return true;
      } catch (e) {
        if (e instanceof ApiException && e.code === 409) return null;
        throw e;
      }
    }
    const spec = lease.spec ?? {};
    const held = spec.holderIdentity === this.o.identity;
    if (!held && spec.holderIdentity && !expired(spec.renewTime, spec.leaseDurationSeconds)) return false;
    const body: V1Lease = {
      ...lease,
      spec: held ? { ...spec, ...mine } : { ...spec, ...mine, acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 },
    };
    try {
      await this.api.replaceNamespacedLease({ name: this.o.name, namespace: this.o.namespace, body });
      return true;
    } catch (e) {
      if (e instanceof ApiException && e.code === 409) return null;
      throw e;
    }
  }
}

function expired(renewTime: Date | undefined, seconds: number | undefined): boolean {
  if (!renewTime) return true;
  return new Date(renewTime).getTime() + (seconds ?? 15) * 1000 < Date.now();
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
