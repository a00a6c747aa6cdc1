/**
 * The cluster's Nodes as svc's workers (SPEC 4.8, 3.4): each Node with its labels, its heartbeat (the
 * renewTime of its Lease in kube-node-lease, which the kubelet renews every few seconds) and the step
 * Pods of this namespace bound to it that have not finished. Read on demand: GET /workers is rare.
 */
import { CoordinationV1Api, CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { ExecIdentity } from '../../core/naming.js';
import { kubeError } from './client.js';
import { IDENTITY_ANNOTATION, STEP_SELECTOR } from '../launcher/pod/pod-spec.js';

export interface NodeWorker {
  name: string;
  labels: Record<string, string>;
  /** When the Node's Lease was last renewed (RFC 3339), undefined without one. */
  heartbeatAt?: string;
  /** Steps running on the Node, by execution identity, with when their Pod started. */
  steps: Array<{ identity: ExecIdentity; startedAt: string }>;
}

const NODE_LEASES = 'kube-node-lease';

export class KubeNodes {
  private readonly core: CoreV1Api;
  private readonly coordination: CoordinationV1Api;

  constructor(kc: KubeConfig, private readonly namespace: string) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.coordination = kc.makeApiClient(CoordinationV1Api);
  }

  async list(): Promise<NodeWorker[]> {
    const [nodes, leases, pods] = await Promise.all([
      this.core.listNode().catch((e: unknown) => { throw kubeError(e, 'nodes'); }),
      this.coordination.listNamespacedLease({ namespace: NODE_LEASES }).catch((e: unknown) => { throw kubeError(e, `leases in ${NODE_LEASES}`); }),
      this.core.listNamespacedPod({ namespace: this.namespace, labelSelector: STEP_SELECTOR }).catch((e: unknown) => { throw kubeError(e, 'pods'); }),
    ]);
    const renewed = new Map(leases.items.map((l) => [l.metadata?.name ?? '', l.spec?.renewTime]));
    const byNode = new Map<string, NodeWorker['steps']>();
    for (const p of pods.items) {
      const step = runningStep(p);
      if (!step || !p.spec?.nodeName) continue;
      byNode.set(p.spec.nodeName, [...(byNode.get(p.spec.nodeName) ?? []), step]);
    }
    return nodes.items.map((n) => {
      const name = n.metadata?.name ?? '';
      const at = renewed.get(name);
      return { name, labels: n.metadata?.labels ?? {}, ...(at ? { heartbeatAt: new Date(at).toISOString() } : {}), steps: byNode.get(name) ?? [] };
    });
  }
}

function runningStep(p: V1Pod): NodeWorker['steps'][number] | undefined {
  const phase = p.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed' || p.metadata?.deletionTimestamp) return undefined;
  try {
    const identity = JSON.parse(p.metadata?.annotations?.[IDENTITY_ANNOTATION] ?? '') as ExecIdentity;
    if (typeof identity?.dagName !== 'string' || typeof identity.dagRunId !== 'string') return undefined;
    return { identity, startedAt: p.status?.startTime ? new Date(p.status.startTime).toISOString() : '' };
  } catch {
    return undefined;
  }
}
