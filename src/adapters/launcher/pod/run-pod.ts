/**
 * The run-scoped Pod of a DAG-level `container` (SPEC 2.5): the DAG's image, env, workingDir and user,
 * kept alive for the run (secret values through its Secret, run-secret.ts); its PID 1 is the svc entry binary's agent, which runs each step inside it as
 * the operator asks (agent-launcher.ts). One per run attempt, named from it, owned by the DagRun.
 */
import { dirname } from 'node:path';
import type { V1EnvVar, V1Pod } from '@kubernetes/client-node';
import type { ContainerConfig } from '../../../core/spec/types.js';
import { execName, labelValue, SVC_LABELS, type ExecIdentity } from '../../../core/naming.js';
import { API_VERSION } from '../../../core/resources.js';
import { hardenedContainer, hardenedPod } from './pod-hardening.js';
import { containerEnv, copyEntry, entryMounts, entryPath, entryVolumes, POD_LABELS, STEP_CONTAINER, type PodSettings } from './pod-spec.js';

export const RUN_CONTAINER = 'run-container';

/** The identity a run attempt's container Pod is named from. */
export const runPodIdentity = (e: Pick<ExecIdentity, 'dagName' | 'dagRunId' | 'attemptId'>): ExecIdentity => ({ dagName: e.dagName, dagRunId: e.dagRunId, attemptId: e.attemptId, node: '', attempt: 0, probe: RUN_CONTAINER });

/** `env`: the container's env as run-secret.ts plans it (secret values by secretKeyRef); the DAG container's items when not given. */
export function runPod(id: ExecIdentity, c: ContainerConfig, agentDir: string, owner: { name: string; uid: string }, s: PodSettings, env: V1EnvVar[] = containerEnv(c.env)): V1Pod {
  const uid = c.user !== undefined && /^\d+$/.test(c.user) ? Number(c.user) : undefined;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: execName(id), namespace: s.namespace,
      labels: { [POD_LABELS.component]: RUN_CONTAINER, [POD_LABELS.managedBy]: 'svc-operator', [POD_LABELS.run]: owner.name, [SVC_LABELS.dag]: labelValue(id.dagName), [SVC_LABELS.dagRun]: labelValue(id.dagRunId) },
      annotations: { 'kubectl.kubernetes.io/default-container': STEP_CONTAINER },
      ownerReferences: [{ apiVersion: API_VERSION, kind: 'DagRun', name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: false }],
    },
    spec: {
      restartPolicy: 'Never', enableServiceLinks: false, automountServiceAccountToken: false,
      securityContext: hardenedPod(undefined, uid !== undefined ? { runAsUser: uid } : undefined),
      terminationGracePeriodSeconds: s.stopGraceSeconds,
      ...(s.serviceAccountName ? { serviceAccountName: s.serviceAccountName } : {}),
      ...(s.entryDelivery === 'init-container' ? { initContainers: [copyEntry(s.entryImage)] } : {}),
      containers: [{
        name: STEP_CONTAINER, image: c.image ?? s.stepImage, command: [entryPath(s.entryDelivery), 'agent', '--dir', agentDir], env,
        ...(c.workingDir ? { workingDir: c.workingDir } : {}),
        securityContext: hardenedContainer(uid !== undefined ? { runAsUser: uid } : undefined),
        ...(c.pullPolicy ? { imagePullPolicy: ({ always: 'Always', missing: 'IfNotPresent', never: 'Never' } as const)[c.pullPolicy] } : {}),
        volumeMounts: entryMounts(s, dirname(agentDir)),
      }],
      volumes: entryVolumes(s),
    },
  };
}
