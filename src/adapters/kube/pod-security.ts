/**
 * Pod Security admission for the namespaces the operator runs steps in: a namespace without an enforce
 * level gets the install's (SVC_POD_SECURITY, the chart's `podSecurity.enforce`, `restricted` by default),
 * so the API server itself refuses a privileged Pod there, whoever creates it. A namespace that already
 * has a level keeps it (an administrator chose it); the operator says so when it is not the install's.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, kubeError } from './client.js';

export const ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';
const VERSION_LABEL = 'pod-security.kubernetes.io/enforce-version';
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export type PodSecurityLevel = 'restricted' | 'baseline';

/** What happened: labelled, already at `level`, or kept at another level (the one it has). */
export type PodSecurityOutcome = { labelled: true } | { labelled: false; level: string };

export async function ensurePodSecurity(kc: KubeConfig, namespace: string, level: PodSecurityLevel): Promise<PodSecurityOutcome> {
  const api = kc.makeApiClient(CoreV1Api);
  try {
    const ns = await api.readNamespace({ name: namespace });
    const current = ns.metadata?.labels?.[ENFORCE_LABEL];
    if (current !== undefined) return { labelled: false, level: current };
    const body = { metadata: { labels: { [ENFORCE_LABEL]: level, [VERSION_LABEL]: 'latest' } } };
    await api.patchNamespace({ name: namespace, body, fieldManager: FIELD_MANAGER }, MERGE);
    return { labelled: true };
  } catch (e) {
    throw kubeError(e, `namespaces/${namespace}`);
  }
}
