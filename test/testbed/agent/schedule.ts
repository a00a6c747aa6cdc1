/**
 * The scheduler part of the agent: which live Nodes may run a Pod (nodeSelector, required node affinity,
 * NoSchedule/NoExecute taints, spec.unschedulable), and which agent acts. Pure functions.
 */
import type { Lease, Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, Taint, Toleration } from './types.js';

/** A Node is live when its Ready condition is True and its Lease was renewed within the lease duration. */
export function isLive(node: Node, lease: Lease | undefined, nowMs: number): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  const renew = lease?.spec?.renewTime ? Date.parse(lease.spec.renewTime) : NaN;
  const duration = (lease?.spec?.leaseDurationSeconds ?? 40) * 1000;
  return ready && Number.isFinite(renew) && nowMs - renew <= duration;
}

function matchRequirement(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1) return false;
      const a = Number.parseInt(value, 10);
      const b = Number.parseInt(values[0] ?? '', 10);
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return req.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

function matchTerm(term: NodeSelectorTerm, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false; // an empty term matches nothing
  return (
    exprs.every((r) => matchRequirement(r, labels[r.key])) &&
    fields.every((r) => matchRequirement(r, r.key === 'metadata.name' ? node.metadata.name : undefined))
  );
}

export function tolerates(tolerations: Toleration[] | undefined, taint: Taint): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (!t.key) return t.operator === 'Exists'; // empty key + Exists tolerates everything
    if (t.key !== taint.key) return false;
    return t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '');
  });
}

/** Why `node` cannot run `pod`, or undefined when it can. */
export function unfit(pod: Pod, node: Node): string | undefined {
  if (node.spec?.unschedulable) return 'node(s) were unschedulable';
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec.nodeSelector ?? {})) {
    if (labels[k] !== v) return "node(s) didn't match Pod's node affinity/selector";
  }
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms && !terms.some((t) => matchTerm(t, node))) return "node(s) didn't match Pod's node affinity/selector";
  for (const taint of node.spec?.taints ?? []) {
    if (taint.effect !== 'PreferNoSchedule' && !tolerates(pod.spec.tolerations, taint)) {
      return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
    }
  }
  return undefined;
}

/** FNV-1a, to spread Pods over the fitting Nodes deterministically (every agent computes the same choice). */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export type Decision =
  | { kind: 'bind'; node: string }
  | { kind: 'unschedulable'; message: string };

/**
 * Schedules one Pod onto the live Nodes. Every agent runs this on the same inputs; the agent owning the
 * chosen Node binds it, and the agent owning the first live Node reports an unschedulable Pod.
 */
export function decide(pod: Pod, liveNodes: Node[], load: Map<string, number>): Decision {
  const nodes = [...liveNodes].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const reasons = new Map<string, number>();
  const fit: Node[] = [];
  for (const n of nodes) {
    const why = unfit(pod, n);
    if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
    else fit.push(n);
  }
  if (fit.length === 0) {
    const detail = [...reasons].map(([why, count]) => `${count} ${why}`).join(', ');
    return { kind: 'unschedulable', message: `0/${nodes.length} nodes are available${detail ? `: ${detail}` : ''}.` };
  }
  // Least loaded first; ties broken by a hash of the Pod so Pods spread over equal Nodes.
  const min = Math.min(...fit.map((n) => load.get(n.metadata.name) ?? 0));
  const best = fit.filter((n) => (load.get(n.metadata.name) ?? 0) === min);
  const chosen = best[hash(pod.metadata.uid ?? pod.metadata.name) % best.length];
  return { kind: 'bind', node: (chosen ?? best[0] ?? fit[0]!).metadata.name };
}
