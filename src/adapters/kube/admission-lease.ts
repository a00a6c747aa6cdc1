/**
 * The AdmissionLock of API replicas over one namespace: one Lease (coordination.k8s.io/v1, `svc-admission`,
 * shipped by the chart) held for the check-and-create of a singleton or maxActiveRuns admission.
 *
 * - Acquire: compare-and-swap on the Lease's resourceVersion, when nobody holds it or its holder stopped
 *   renewing it `leaseSeconds` ago (a replica that died holding it blocks admissions that long at most).
 *   A replica waits at most `waitMs`, then the admission is a 503 that says why.
 * - Fresh counts: the holder counts runs from its watch-fed cache, which may lag the writes of another
 *   replica. Each release records the highest DagRun resourceVersion its replica wrote; the next holder
 *   waits for its cache to have seen that version (the store LISTs the API when it cannot catch up).
 * - One Lease for all DAG names: admissions with a check are rare next to plain starts, and a Lease per
 *   name would need `create` on every Lease of the namespace, the operator's included.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ApiException, CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { DomainError } from '../../core/errors.js';
import type { AdmissionLock } from '../../core/ports/admission.js';
import { kubeError } from './client.js';

export const ADMISSION_LEASE = 'svc-admission';
/** On the Lease: the highest DagRun resourceVersion written by the replica that released it last. */
export const WRITTEN_ANNOTATION = 'svc.io/runs-written';

/** What the lock needs of the run store: its own writes, and a version its reads must include. */
export interface VersionedRuns {
  writtenVersion(): string;
  expectVersion(rv: string): void;
}

export interface AdmissionLeaseOptions {
  namespace: string;
  /** Unique per process (default host, pid and a random suffix). */
  identity?: string;
  leaseSeconds?: number;
  waitMs?: number;
  retryMs?: number;
  /** A release that failed (the Lease then expires by itself). */
  onError?(e: unknown): void;
}

export class KubeAdmissionLock implements AdmissionLock {
  private readonly api: CoordinationV1Api;
  private readonly identity: string;
  /** One Lease for every name: this process's holders take turns before they ask the API. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(kc: KubeConfig, private readonly runs: VersionedRuns, private readonly o: AdmissionLeaseOptions) {
    this.api = kc.makeApiClient(CoordinationV1Api);
    this.identity = o.identity ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  hold<T>(_dagName: string, fn: () => Promise<T>): Promise<T> {
    const mine = this.turn.catch(() => undefined).then(() => this.holdLease(fn));
    this.turn = mine;
    return mine;
  }

  private async holdLease<T>(fn: () => Promise<T>): Promise<T> {
    const lease = await this.acquire();
    const before = lease.metadata?.annotations?.[WRITTEN_ANNOTATION];
    if (before) this.runs.expectVersion(before);
    try {
      return await fn();
    } finally {
      await this.release(lease, before);
    }
  }

  private async acquire(): Promise<V1Lease> {
    const waitMs = this.o.waitMs ?? 15_000;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const lease = await this.tryAcquire();
      if (lease) return lease;
      if (Date.now() > deadline) {
        throw new DomainError('service_unavailable', `another API server has held the run admission Lease ${ADMISSION_LEASE} for over ${waitMs / 1000}s; try again`);
      }
      const pause = (this.o.retryMs ?? 20) * (1 + Math.random());
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  /** The Lease, now held by this process; undefined while another live holder has it or a write raced. */
  private async tryAcquire(): Promise<V1Lease | undefined> {
    const now = new V1MicroTime();
    const held = { holderIdentity: this.identity, leaseDurationSeconds: this.o.leaseSeconds ?? 10, acquireTime: now, renewTime: now };
    const lease = await this.read();
    try {
      if (!lease) {
        return await this.api.createNamespacedLease({ namespace: this.o.namespace, body: { metadata: { name: ADMISSION_LEASE }, spec: held } });
      }
      const spec = lease.spec ?? {};
      if (spec.holderIdentity && !expired(spec.renewTime, spec.leaseDurationSeconds)) return undefined;
      return await this.api.replaceNamespacedLease({ name: ADMISSION_LEASE, namespace: this.o.namespace, body: { ...lease, spec: { ...spec, ...held } } });
    } catch (e) {
      if (e instanceof ApiException && e.code === 409) return undefined;
      throw kubeError(e, `leases/${ADMISSION_LEASE}`);
    }
  }

  /** Frees the Lease with this replica's writes recorded; a holder that took it over after expiry keeps it. */
  private async release(lease: V1Lease, before: string | undefined): Promise<void> {
    const written = newer(this.runs.writtenVersion(), before);
    const annotations = { ...lease.metadata?.annotations, ...(written ? { [WRITTEN_ANNOTATION]: written } : {}) };
    const body: V1Lease = { ...lease, metadata: { ...lease.metadata, annotations }, spec: { ...lease.spec, holderIdentity: undefined } };
    try {
      await this.api.replaceNamespacedLease({ name: ADMISSION_LEASE, namespace: this.o.namespace, body });
    } catch (e) {
      // 409: taken over after it expired (this holder was too slow), so it is someone else's now. Any
      // other failure leaves the Lease to expire: the admission itself is done and stands.
      if (!(e instanceof ApiException && e.code === 409)) this.o.onError?.(kubeError(e, `leases/${ADMISSION_LEASE}`));
    }
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ name: ADMISSION_LEASE, namespace: this.o.namespace });
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return undefined;
      throw kubeError(e, `leases/${ADMISSION_LEASE}`);
    }
  }
}

function expired(renewTime: Date | undefined, seconds: number | undefined): boolean {
  return !renewTime || new Date(renewTime).getTime() + (seconds ?? 10) * 1000 < Date.now();
}

/** The higher of two resourceVersions (integers as the API server issues them); a non-integer loses. */
function newer(a: string, b: string | undefined): string | undefined {
  const n = (v: string | undefined): bigint => {
    try {
      return v ? BigInt(v) : -1n;
    } catch {
      return -1n;
    }
  };
  const best = n(a) >= n(b) ? a : b;
  return n(best) >= 0n ? best : undefined;
}
