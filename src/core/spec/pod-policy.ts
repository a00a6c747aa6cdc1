/**
 * The Pod policy of steps (docs/kubernetes.md "What a step can reach", ADR 0024): what a DAG author may
 * ask of a step Pod through the `kubernetes` block and `container.user`. An allowlist: a field, a key of
 * a securityContext, a ServiceAccount, a PriorityClass, a Secret, a claim or a toleration key is refused
 * unless listed here. An install widens the policy explicitly (SVC_POD_POLICY, the chart's `podPolicy`);
 * some things no policy allows (privileged, privilege escalation, an unconfined seccomp or AppArmor
 * profile, a toleration of every taint, the Helm release Secret). Pure: the same rules answer
 * `svc validate`, POST /dags/validate, PUT spec, the Dag admission webhook and the operator before it
 * creates a Pod.
 */
import type { ContainerConfig, DagDefinition, KubernetesBlock, StepDefinition } from './types.js';
import { mergeKubernetes } from './kubernetes.js';

export interface PodPolicy {
  /** ServiceAccounts a step may run as (its token is then mounted). */
  serviceAccounts: readonly string[];
  /** PriorityClasses a step Pod may have. */
  priorityClasses: readonly string[];
  /** Secrets a step may mount or pull its image with: names, or prefixes ending in `*` (`team-a-*`). */
  secrets: readonly string[];
  /** PersistentVolumeClaims a step may mount: names, or prefixes ending in `*`. */
  claims: readonly string[];
  /** Linux capabilities a step container may add (none by default; every other one is dropped). */
  capabilities: readonly string[];
  /** Toleration keys of Kubernetes' own taints (`*kubernetes.io/*`: control plane, unschedulable...) a step may tolerate. */
  tolerationKeys: readonly string[];
  /** Whether a step may run as root (runAsUser 0, runAsNonRoot false, container.user 0 or root). */
  root: boolean;
}

/** Nothing beyond what every step may ask. */
export const DEFAULT_POD_POLICY: PodPolicy = {
  serviceAccounts: [], priorityClasses: [], secrets: [], claims: [], capabilities: [], tolerationKeys: [], root: false,
};

/** Secrets no policy lets a step mount: Helm's release records (they hold every value of the release, the webhook's TLS key among them). */
const NEVER_SECRET_PREFIXES = ['sh.helm.release.v1.'];

/** The keys of the container securityContext a step may set (each checked for its value below). */
const CONTAINER_KEYS = ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'readOnlyRootFilesystem', 'allowPrivilegeEscalation', 'privileged', 'capabilities', 'seccompProfile'];
/** The keys of the Pod securityContext a step may set. */
const POD_KEYS = ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'fsGroup', 'fsGroupChangePolicy', 'supplementalGroups', 'seccompProfile'];
const AFFINITY_KEYS = ['nodeAffinity', 'podAffinity', 'podAntiAffinity'];
const SECCOMP_TYPES = ['RuntimeDefault', 'Localhost'];

type Add = (field: string, message: string) => void;

/** Whether `name` is one of `list`'s names or starts with one of its `prefix*` entries. */
export function listed(list: readonly string[], name: string): boolean {
  return list.some((p) => (p.endsWith('*') ? p.length > 1 && name.startsWith(p.slice(0, -1)) : p === name));
}

/** Why no policy lets a step mount the Secret `name`, or undefined. */
export function neverMountable(name: string): string | undefined {
  const prefix = NEVER_SECRET_PREFIXES.find((p) => name.startsWith(p));
  return prefix ? `${name} is a Helm release record (${prefix}*), which no step may mount` : undefined;
}

/**
 * Every way the block (the one a Pod gets: a step's merged over its DAG's) breaks the policy, each as
 * `kubernetes.<field>: why`, prefixed with `path`.
 */
export function blockPolicyProblems(k: KubernetesBlock, policy: PodPolicy, path = 'kubernetes'): string[] {
  const out: string[] = [];
  const add: Add = (field, message) => out.push(`${path}.${field}: ${message}`);
  identityProblems(k, policy, add);
  tolerationProblems(k, policy, add);
  volumeProblems(k, policy, add);
  affinityProblems(k, add);
  contextProblems(k.securityContext, 'securityContext', CONTAINER_KEYS, policy, add);
  contextProblems(k.podSecurityContext, 'podSecurityContext', POD_KEYS, policy, add);
  return out;
}

/** `container.user` as a Pod's runAsUser: root only where the policy allows it. */
export function containerUserProblem(c: ContainerConfig | undefined, policy: PodPolicy, path = 'container'): string | undefined {
  const user = c?.user?.split(':')[0]?.trim();
  if (policy.root || user === undefined || (user !== '0' && user !== 'root')) return undefined;
  return `${path}.user: ${c!.user} is root; step Pods run as a non-root user (the install's pod policy does not allow root)`;
}

/**
 * Every problem of the DAG's Pods under the policy: the DAG's block, each step's and handler's merged
 * over it, and the containers' users.
 */
export function dagPolicyProblems(def: DagDefinition, policy: PodPolicy): string[] {
  const steps: Array<[string, StepDefinition]> = [
    ...def.steps.map((s): [string, StepDefinition] => [`step ${s.name}`, s]),
    ...Object.entries(def.handlerOn).map(([kind, s]): [string, StepDefinition] => [`handlerOn.${kind}`, s!]),
  ];
  const out = def.kubernetes ? blockPolicyProblems(def.kubernetes, policy) : [];
  const user = containerUserProblem(def.container, policy);
  if (user) out.push(user);
  for (const [where, s] of steps) {
    // The DAG's own fields were reported once, above: a step is checked only for what it sets itself.
    const own = s.kubernetes ? blockPolicyProblems(mergeKubernetes(def.kubernetes, s.kubernetes)!, policy, `${where}: kubernetes`) : [];
    const dagLevel = new Set(def.kubernetes ? blockPolicyProblems(def.kubernetes, policy, `${where}: kubernetes`) : []);
    out.push(...own.filter((p) => !dagLevel.has(p)));
    const stepUser = containerUserProblem(s.container, policy, `${where}: container`);
    if (stepUser && s.container?.user !== def.container?.user) out.push(stepUser);
  }
  return [...new Set(out)];
}

function identityProblems(k: KubernetesBlock, policy: PodPolicy, add: Add): void {
  const account = k.serviceAccountName;
  if (account !== undefined && !policy.serviceAccounts.includes(account)) {
    add('serviceAccountName', `${account} is not a ServiceAccount steps may run as (${allowedText(policy.serviceAccounts, 'podPolicy.serviceAccounts')})`);
  }
  const priority = k.priorityClassName;
  if (priority !== undefined && !policy.priorityClasses.includes(priority)) {
    add('priorityClassName', `${priority} is not a PriorityClass steps may use (${allowedText(policy.priorityClasses, 'podPolicy.priorityClasses')})`);
  }
  for (const name of k.imagePullSecrets ?? []) {
    const why = secretProblem(name, policy);
    if (why) add('imagePullSecrets', why);
  }
}

function allowedText(list: readonly string[], value: string): string {
  return list.length > 0 ? `allowed: ${list.join(', ')}` : `the install allows none; an administrator lists them in ${value}`;
}

function secretProblem(name: string, policy: PodPolicy): string | undefined {
  const never = neverMountable(name);
  if (never) return never;
  return listed(policy.secrets, name) ? undefined : `the Secret ${name} is not one steps may use (${allowedText(policy.secrets, 'podPolicy.secrets')})`;
}

function tolerationProblems(k: KubernetesBlock, policy: PodPolicy, add: Add): void {
  (k.tolerations ?? []).forEach((t, i) => {
    const key = t.key ?? '';
    if (key === '') add(`tolerations[${i}].key`, 'is empty: a toleration of every taint is not allowed, name the taint\'s key');
    else if (kubernetesOwn(key) && !policy.tolerationKeys.includes(key)) {
      add(`tolerations[${i}].key`, `${key} is a taint of Kubernetes' own (control plane, unschedulable, not ready nodes) that steps may not tolerate (${allowedText(policy.tolerationKeys, 'podPolicy.tolerationKeys')})`);
    }
  });
}

/** `kubernetes.io/...`, `<anything>.kubernetes.io/...`, `k8s.io/...`: the taints Kubernetes itself sets. */
function kubernetesOwn(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash);
  return ['kubernetes.io', 'k8s.io'].some((d) => prefix === d || prefix.endsWith(`.${d}`));
}

function volumeProblems(k: KubernetesBlock, policy: PodPolicy, add: Add): void {
  (k.volumes ?? []).forEach((v, i) => {
    const secret = v.secret?.secretName;
    const why = secret !== undefined ? secretProblem(secret, policy) : undefined;
    if (why) add(`volumes[${i}].secret.secretName`, why);
    const claim = v.persistentVolumeClaim?.claimName;
    if (claim !== undefined && !listed(policy.claims, claim)) {
      add(`volumes[${i}].persistentVolumeClaim.claimName`, `the claim ${claim} is not one steps may mount (${allowedText(policy.claims, 'podPolicy.claims')})`);
    }
  });
}

function affinityProblems(k: KubernetesBlock, add: Add): void {
  for (const key of Object.keys(k.affinity ?? {})) {
    if (!AFFINITY_KEYS.includes(key)) add(`affinity.${key}`, `is not an affinity field (${AFFINITY_KEYS.join(', ')})`);
  }
}

type Ctx = Record<string, unknown>;

function contextProblems(sc: Ctx | undefined, field: string, keys: string[], policy: PodPolicy, add: Add): void {
  if (!sc) return;
  for (const key of Object.keys(sc)) {
    if (!keys.includes(key)) add(`${field}.${key}`, `may not be set by a step (allowed: ${keys.join(', ')})`);
  }
  const bad = (key: string, message: string): void => add(`${field}.${key}`, message);
  rootProblems(sc, policy, bad);
  if (sc.privileged !== undefined && sc.privileged !== false) bad('privileged', 'a step may not run privileged');
  if (sc.allowPrivilegeEscalation !== undefined && sc.allowPrivilegeEscalation !== false) bad('allowPrivilegeEscalation', 'must be false: a step may not gain privileges (setuid, file capabilities)');
  capabilityProblems(sc.capabilities, policy, (m) => bad('capabilities.add', m));
  seccompProblems(sc.seccompProfile, (m) => bad('seccompProfile', m));
}

function rootProblems(sc: Ctx, policy: PodPolicy, bad: (key: string, message: string) => void): void {
  if (policy.root) return;
  if (sc.runAsUser !== undefined && (typeof sc.runAsUser !== 'number' || sc.runAsUser <= 0)) bad('runAsUser', `${JSON.stringify(sc.runAsUser)}: must be a user id above 0; step Pods run as a non-root user`);
  if (sc.runAsNonRoot !== undefined && sc.runAsNonRoot !== true) bad('runAsNonRoot', 'must be true: step Pods run as a non-root user');
}

function capabilityProblems(raw: unknown, policy: PodPolicy, bad: (message: string) => void): void {
  if (raw === undefined) return;
  const caps = raw !== null && typeof raw === 'object' ? (raw as Ctx) : undefined;
  const add = caps?.add;
  if (add === undefined) return;
  const list = Array.isArray(add) ? add.map(String) : [String(add)];
  const refused = list.filter((c) => !policy.capabilities.includes(c.toUpperCase().replace(/^CAP_/, '')));
  if (refused.length > 0) bad(`${refused.join(', ')}: steps may add no capability (${allowedText(policy.capabilities, 'podPolicy.capabilities')})`);
}

function seccompProblems(raw: unknown, bad: (message: string) => void): void {
  if (raw === undefined) return;
  const type = raw !== null && typeof raw === 'object' ? (raw as Ctx).type : undefined;
  if (typeof type !== 'string' || !SECCOMP_TYPES.includes(type)) bad(`type ${JSON.stringify(type)} is not allowed: a step runs with a seccomp profile (${SECCOMP_TYPES.join(' or ')})`);
}
