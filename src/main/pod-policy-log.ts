/** The pod policy at start: a widened one is said where the install's operators look (never silent); namespaces get their Pod Security level. */
import type { KubeConfig } from '@kubernetes/client-node';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import { ENFORCE_LABEL, ensurePodSecurity, type PodSecurityLevel } from '../adapters/kube/pod-security.js';
import type { PodPolicy } from '../core/spec/pod-policy.js';
import { widenings } from '../config/pod-policy.js';

export function logPodPolicy(policy: PodPolicy, log: Pick<EngineLogger, 'warn'>): void {
  const wider = widenings(policy);
  if (wider.length > 0) log.warn('Pod policy of steps widened by SVC_POD_POLICY', { widened: wider.join('; ') });
}

/** In the background: a namespace the operator cannot label (no right to) still has its runs driven, with a warning. */
export function labelPodSecurity(kc: KubeConfig, namespace: string, level: PodSecurityLevel, log: Pick<EngineLogger, 'warn' | 'info'>): void {
  ensurePodSecurity(kc, namespace, level).then((r) => {
    if (r.labelled) log.info('Labelled the namespace for Pod Security admission', { namespace, [ENFORCE_LABEL]: level });
    else if (r.level !== level) log.warn('The namespace keeps its own Pod Security level', { namespace, [ENFORCE_LABEL]: r.level, install: level });
  }, (e: unknown) => log.warn('Could not label the namespace for Pod Security admission', { namespace, error: e instanceof Error ? e.message : String(e) }));
}
