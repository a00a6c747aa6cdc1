/**
 * The security settings every Pod of the operator's has (step Pods, run-scoped container Pods, the
 * entry's init container), whatever the DAG says: no privilege escalation, every capability dropped, the
 * runtime's seccomp profile, a non-root user, no ServiceAccount token. They satisfy the Pod Security
 * Standard `restricted`. The DAG's block may add what the pod policy allowed (core/spec/pod-policy.ts,
 * checked before a Pod is made): a user id, a group, added capabilities, a Localhost seccomp profile;
 * the rest of what it says about privileges never reaches the Pod.
 */
import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';

/** The user and group of a step that names none: an image's root user never runs a step by accident. */
export const STEP_USER = 65532;

type Ctx = Record<string, unknown>;

/** Root only where the block asks for it explicitly (the policy refuses that unless the install allows root). */
const asksRoot = (sc: Ctx | undefined): boolean => sc?.runAsUser === 0 || sc?.runAsNonRoot === false;

function seccomp(sc: Ctx | undefined): V1SecurityContext['seccompProfile'] {
  const p = sc?.seccompProfile as { type?: string; localhostProfile?: string } | undefined;
  return p?.type === 'Localhost' && p.localhostProfile ? { type: 'Localhost', localhostProfile: p.localhostProfile } : { type: 'RuntimeDefault' };
}

/** A container's securityContext: the hardened one, with what the block may add. */
export function hardenedContainer(sc?: Ctx): V1SecurityContext {
  const caps = (sc?.capabilities ?? {}) as { add?: unknown };
  const add = Array.isArray(caps.add) ? caps.add.map(String) : [];
  const num = (k: string): number | undefined => (typeof sc?.[k] === 'number' ? (sc[k] as number) : undefined);
  const [user, group] = [num('runAsUser'), num('runAsGroup')];
  return {
    ...(user !== undefined ? { runAsUser: user } : {}),
    ...(group !== undefined ? { runAsGroup: group } : {}),
    ...(sc?.readOnlyRootFilesystem === true ? { readOnlyRootFilesystem: true } : {}),
    runAsNonRoot: !asksRoot(sc),
    allowPrivilegeEscalation: false,
    privileged: false,
    capabilities: { drop: ['ALL'], ...(add.length > 0 ? { add } : {}) },
    seccompProfile: seccomp(sc),
  };
}

/** The Pod's securityContext: a non-root user unless the block names one, with the groups it may set. */
export function hardenedPod(psc?: Ctx, container?: Ctx): V1PodSecurityContext {
  const pick = (k: string): Ctx => (psc?.[k] !== undefined ? { [k]: psc[k] } : {});
  const root = asksRoot(psc) || asksRoot(container);
  const named = psc?.runAsUser !== undefined || container?.runAsUser !== undefined;
  return {
    ...(named || root ? {} : { runAsUser: STEP_USER, runAsGroup: STEP_USER, fsGroup: STEP_USER }),
    ...pick('runAsUser'), ...pick('runAsGroup'), ...pick('fsGroup'), ...pick('fsGroupChangePolicy'), ...pick('supplementalGroups'),
    runAsNonRoot: !root,
    seccompProfile: seccomp(psc),
  } as V1PodSecurityContext;
}
