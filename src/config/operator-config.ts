/** The operator's settings (`svc operator`): how step Pods are made, kept and led. */
import { ConfigError } from './values.js';

const isDnsSubdomain = (s: string): boolean => s.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(s);

export interface OperatorConfig {
  /** SVC_STEP_IMAGE: the image of steps that name none (default debian:stable-slim). */
  stepImage: string;
  /** SVC_ENTRY_IMAGE: the svc image, which holds the step entry binary (default svc:<version>). */
  entryImage: string;
  /** SVC_ENTRY_DELIVERY: image-volume (default; Kubernetes 1.33+) or init-container. */
  entryDelivery: 'image-volume' | 'init-container';
  /**
   * SVC_DATA_CLAIM: the PersistentVolumeClaim (ReadWriteMany) holding SVC_DATA_DIR, mounted at the same
   * path in step Pods so they write their logs there. None: step Pods write to SVC_DATA_DIR on their node.
   */
  dataClaim?: string;
  /** SVC_POD_RETENTION: finished step Pods kept for debugging: none (default), failed, all. */
  podRetention: 'none' | 'failed' | 'all';
  /** SVC_STOP_GRACE_SECONDS: between a step's stop signal and SIGKILL (default 30). */
  stopGraceSeconds: number;
  /** SVC_LEASE_SECONDS: how long a dead leader's Lease holds the others back (default 15). */
  leaseSeconds: number;
  /** SVC_POD_CREATE_QPS: Pods created per second at most, with twice that as a burst (default 50). */
  podCreateQps: number;
  /** SVC_STEP_SERVICE_ACCOUNT: the ServiceAccount of step Pods whose DAG names none (default: the namespace's default). */
  stepServiceAccount?: string;
  /** SVC_OPERATOR_ID: this replica's identity in the Lease (default hostname and pid). */
  identity?: string;
  /** SVC_OPERATOR_PORT: where GET /health and GET /metrics listen, on SVC_HOST (default 8081; 0: any free port). */
  port: number;
  /** SVC_MAX_ACTIVE_RUNS: runs the leader drives at once (default 1000); more wait their turn, oldest first. */
  maxActiveRuns: number;
  /** SVC_SECRET_ENV_FROM: the Secret whose keys `provider: env` secrets read (none: such secrets fail, saying so). */
  secretEnvFrom?: string;
  /**
   * SVC_PROTECTED_SECRETS, SVC_PROTECTED_SERVICE_ACCOUNTS: svc's own Secrets and ServiceAccounts in the
   * namespace (comma-separated names), which a step's `kubernetes` block may not mount or run as.
   */
  protectedSecrets?: string[];
  protectedServiceAccounts?: string[];
  /**
   * SVC_WATCH_NAMESPACES: the namespaces whose runs the operator drives besides its own: `all` (every
   * namespace holding a Dag) or a comma-separated list. None: its own namespace only (the default).
   */
  watchNamespaces?: 'all' | string[];
  /** SVC_WATCH_NAMESPACE_SELECTOR: with `all`, only the namespaces whose labels match this selector. */
  namespaceSelector?: string;
  /**
   * SVC_POD_SECURITY: the Pod Security admission level (restricted or baseline) the operator gives each
   * namespace it runs steps in that has none. Unset or `off`: namespaces are left as they are.
   */
  podSecurity?: 'restricted' | 'baseline';
}

function oneOf<T extends string>(name: string, v: string | undefined, values: readonly T[], fallback: T): T {
  if (v === undefined || v === '') return fallback;
  const found = values.find((x) => x === v);
  if (!found) throw new ConfigError(`${name}: "${v}" must be one of ${values.join(', ')}`);
  return found;
}

function whole(name: string, v: string | undefined, fallback: number, min: number, unit: string): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name}: "${v}" must be a whole number of ${unit}, at least ${min}`);
  return n;
}

function tcpPort(v: string | undefined): number {
  const port = whole('SVC_OPERATOR_PORT', v, 8081, 0, 'a TCP port');
  if (port > 65535) throw new ConfigError(`SVC_OPERATOR_PORT: "${v}" must be a TCP port, 0 to 65535`);
  return port;
}

/** A comma-separated list of object names (DNS subdomains); undefined when empty. */
function names(name: string, v: string | undefined): string[] | undefined {
  const list = (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const bad = list.find((s) => !isDnsSubdomain(s));
  if (bad !== undefined) throw new ConfigError(`${name}: "${bad}" is not an object name (lowercase letters, digits, "-" and ".", at most 253)`);
  return list.length > 0 ? list : undefined;
}

const isDnsLabel = (s: string): boolean => s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);

function watched(v: string | undefined): OperatorConfig['watchNamespaces'] {
  if (v === 'all') return 'all';
  const list = (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const bad = list.find((s) => !isDnsLabel(s));
  if (bad !== undefined) throw new ConfigError(`SVC_WATCH_NAMESPACES: "${bad}" is not a namespace name (lowercase letters, digits and "-", at most 63); or "all"`);
  return list.length > 0 ? list : undefined;
}

export function loadOperatorConfig(env: NodeJS.ProcessEnv, version: string): OperatorConfig {
  const text = (k: string): string | undefined => (env[k]?.trim() ? env[k]!.trim() : undefined);
  const dataClaim = text('SVC_DATA_CLAIM');
  const identity = text('SVC_OPERATOR_ID');
  const stepServiceAccount = text('SVC_STEP_SERVICE_ACCOUNT');
  const secretEnvFrom = text('SVC_SECRET_ENV_FROM');
  const protectedSecrets = names('SVC_PROTECTED_SECRETS', text('SVC_PROTECTED_SECRETS'));
  const protectedServiceAccounts = names('SVC_PROTECTED_SERVICE_ACCOUNTS', text('SVC_PROTECTED_SERVICE_ACCOUNTS'));
  const watchNamespaces = watched(text('SVC_WATCH_NAMESPACES'));
  const namespaceSelector = text('SVC_WATCH_NAMESPACE_SELECTOR');
  const podSecurity = oneOf('SVC_POD_SECURITY', text('SVC_POD_SECURITY'), ['off', 'restricted', 'baseline'] as const, 'off');
  if (namespaceSelector !== undefined && watchNamespaces !== 'all') throw new ConfigError('SVC_WATCH_NAMESPACE_SELECTOR narrows SVC_WATCH_NAMESPACES=all: set that too, or drop the selector');
  if (secretEnvFrom !== undefined && !isDnsSubdomain(secretEnvFrom)) throw new ConfigError(`SVC_SECRET_ENV_FROM: "${secretEnvFrom}" is not a Secret name (lowercase letters, digits, "-" and ".", at most 253)`);
  return {
    stepImage: text('SVC_STEP_IMAGE') ?? 'debian:stable-slim',
    entryImage: text('SVC_ENTRY_IMAGE') ?? `svc:${version}`,
    entryDelivery: oneOf('SVC_ENTRY_DELIVERY', text('SVC_ENTRY_DELIVERY'), ['image-volume', 'init-container'] as const, 'image-volume'),
    ...(dataClaim ? { dataClaim } : {}),
    podRetention: oneOf('SVC_POD_RETENTION', text('SVC_POD_RETENTION'), ['none', 'failed', 'all'] as const, 'none'),
    stopGraceSeconds: whole('SVC_STOP_GRACE_SECONDS', text('SVC_STOP_GRACE_SECONDS'), 30, 0, 'seconds'),
    leaseSeconds: whole('SVC_LEASE_SECONDS', text('SVC_LEASE_SECONDS'), 15, 3, 'seconds'),
    podCreateQps: whole('SVC_POD_CREATE_QPS', text('SVC_POD_CREATE_QPS'), 50, 1, 'Pods a second'),
    ...(identity ? { identity } : {}),
    ...(stepServiceAccount ? { stepServiceAccount } : {}),
    port: tcpPort(text('SVC_OPERATOR_PORT')),
    maxActiveRuns: whole('SVC_MAX_ACTIVE_RUNS', text('SVC_MAX_ACTIVE_RUNS'), 1000, 1, 'runs'),
    ...(secretEnvFrom ? { secretEnvFrom } : {}),
    ...(protectedSecrets ? { protectedSecrets } : {}),
    ...(protectedServiceAccounts ? { protectedServiceAccounts } : {}),
    ...(watchNamespaces ? { watchNamespaces } : {}),
    ...(namespaceSelector ? { namespaceSelector } : {}),
    ...(podSecurity !== 'off' ? { podSecurity } : {}),
  };
}
