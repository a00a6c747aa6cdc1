/**
 * What a step's `kubernetes` block may not give its Pod. Kubernetes checks that whoever creates a Pod may
 * create Pods, not that they may read the Secrets, claims and ServiceAccounts the Pod names: the operator
 * creates every step Pod, so without this check a DAG author could mount svc's own Secrets (the API's
 * token signing key, the bucket's credentials, the webhook's TLS key, another execution's secret env),
 * the data claim with every run's logs and results, or run as the operator's ServiceAccount.
 */
import type { KubernetesBlock } from '../../../core/spec/types.js';

/** svc's own objects in the namespace, which no step Pod may name. */
export interface ProtectedObjects {
  secrets: readonly string[];
  serviceAccounts: readonly string[];
  claims: readonly string[];
}

/**
 * Why the block may not be a step Pod's (undefined when it may). `isExecSecret`: a name that is one of
 * svc's execution Secrets (another step's secret values and upload grant).
 */
export function podAccessProblem(k: KubernetesBlock, p: ProtectedObjects, isExecSecret: (name: string) => boolean): string | undefined {
  const account = k.serviceAccountName;
  if (account !== undefined && p.serviceAccounts.includes(account)) return `kubernetes.serviceAccountName: ${account} is svc's own ServiceAccount; a step may not run as it`;
  for (const v of k.volumes ?? []) {
    const secret = v.secret?.secretName;
    if (secret !== undefined && (p.secrets.includes(secret) || isExecSecret(secret))) return `kubernetes.volumes: ${v.name} mounts the Secret ${secret}, which is svc's own; a step may not mount it`;
    const claim = v.persistentVolumeClaim?.claimName;
    if (claim !== undefined && p.claims.includes(claim)) return `kubernetes.volumes: ${v.name} mounts the claim ${claim}, which holds every run's logs; a step sees only its own run's part of it`;
  }
  return undefined;
}
