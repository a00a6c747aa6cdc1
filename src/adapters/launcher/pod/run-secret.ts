/**
 * The Secret of a run's container Pod (ADR 0028): the run's secret values reach the Pod's agent through it
 * (secretKeyRef env), never through the Pod's spec or the request files on the data volume. Each value, in
 * every form svc writes it, is a variable SVC_SECRET_REF_<n>; a request names those (core/secret-parts.ts)
 * and the agent resolves them from its own environment, so after an operator restart the references still
 * resolve: the operator reads the mapping back from the Secret. The DAG container's env items that carry a
 * secret come from it too. Named like the Pod, owned by the DagRun (deleted with the run).
 */
import type { V1EnvVar, V1Secret } from '@kubernetes/client-node';
import type { ContainerConfig } from '../../../core/spec/types.js';
import { API_VERSION } from '../../../core/resources.js';
import { carriesSecret } from '../../../core/secret-values.js';
import { referencedForms } from '../../../core/secret-parts.js';
import { containerEnv, POD_LABELS } from './pod-spec.js';

/** The prefix of the agent's reference variables (src/entry/refs.go): never inherited by a step. */
export const REF_ENV_PREFIX = 'SVC_SECRET_REF_';
const REF_KEY = 'ref';

export interface RunSecretPlan {
  /** The container's env: the DAG container's items, then the references. */
  env: V1EnvVar[];
  /** The Secret's data (base64); empty when the run has no secret. */
  data: Record<string, string>;
  /** Each form of a value → the variable holding it. */
  refs: Map<string, string>;
}

const b64 = (v: string): string => Buffer.from(v).toString('base64');

export function runSecretPlan(name: string, c: ContainerConfig, secrets: readonly string[]): RunSecretPlan {
  const values = secrets.filter((s) => s !== '');
  const data: Record<string, string> = {};
  const env = containerEnv(c.env).map((e, i): V1EnvVar => {
    if (!carriesSecret(e.value ?? '', values)) return e;
    data[`env${i}`] = b64(e.value!);
    return { name: e.name, valueFrom: { secretKeyRef: { name, key: `env${i}` } } };
  });
  const refs = new Map<string, string>();
  referencedForms(values).forEach((form, i) => {
    data[`${REF_KEY}${i}`] = b64(form);
    refs.set(form, `${REF_ENV_PREFIX}${i}`);
    env.push({ name: `${REF_ENV_PREFIX}${i}`, valueFrom: { secretKeyRef: { name, key: `${REF_KEY}${i}` } } });
  });
  return { env, data, refs };
}

export function runSecretBody(name: string, namespace: string, owner: { name: string; uid: string }, data: Record<string, string>): V1Secret {
  return {
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data,
    metadata: { name, namespace, labels: { [POD_LABELS.component]: 'run-container', [POD_LABELS.managedBy]: 'svc-operator' }, ownerReferences: [{ apiVersion: API_VERSION, kind: 'DagRun', name: owner.name, uid: owner.uid }] },
  };
}

/** The references a run's Secret holds (form → variable), as `runSecretPlan` made them. */
export function refsOfSecret(secret: V1Secret | undefined): Map<string, string> {
  const refs = new Map<string, string>();
  for (const [key, value] of Object.entries(secret?.data ?? {})) {
    const n = key.startsWith(REF_KEY) ? key.slice(REF_KEY.length) : '';
    if (/^\d+$/.test(n)) refs.set(Buffer.from(value, 'base64').toString(), `${REF_ENV_PREFIX}${n}`);
  }
  return refs;
}
