/**
 * The typed, defaulted DAG definition (SPEC 2.2-2.6, 2.9) that the loader produces and the engine consumes.
 * Everything here is plain JSON data: it is snapshotted into DagRun.spec and stored in Dag.spec.
 * Values are kept as written (no variable expansion): expansion happens at run time.
 */

export type LogOutput = 'separate' | 'merged';
export type HandlerKind = 'init' | 'success' | 'failure' | 'abort' | 'wait' | 'exit';
export const HANDLER_KINDS: readonly HandlerKind[] = ['init', 'success', 'failure', 'abort', 'wait', 'exit'];

/** A handler's default step name, which is also the name of its node in a run (SPEC 2.8 onInit, onExit, ...). */
export const HANDLER_STEP_NAMES: Record<HandlerKind, string> = {
  init: 'onInit', success: 'onSuccess', failure: 'onFailure', abort: 'onAbort', wait: 'onWait', exit: 'onExit',
};

export interface Tag {
  key: string;
  /** Absent for a plain label (`critical`); lowercased. */
  value?: string;
}

export interface CronEntry {
  /** The 5-field expression without any CRON_TZ= prefix. */
  expression: string;
  /** IANA zone from a CRON_TZ=/TZ= prefix. */
  timezone?: string;
  /** The expression as written (prefix included). */
  raw: string;
}

export interface Schedule {
  start: CronEntry[];
  stop: CronEntry[];
  restart: CronEntry[];
}

export interface ParamDef {
  /** Absent for a positional parameter. */
  name?: string;
  /** Default value as a string ('' when none given). */
  default: string;
}

export interface EnvEntry {
  name: string;
  value: string;
}

export interface SecretRef {
  name: string;
  provider: string;
  key: string;
  options: Record<string, string>;
}

export interface Precondition {
  /** A command (`test -f x`, backquotes) or an expression like `${VAR}` / "`date +%d`". */
  condition: string;
  /** Value to compare against; `re:` prefix makes it a regular expression. Absent: the command must exit 0. */
  expected?: string;
  negate: boolean;
  error?: string;
}

export interface ContinueOn {
  failure: boolean;
  skipped: boolean;
  exitCode: number[];
  /** Literal substrings or `re:` patterns matched against stdout lines. */
  output: string[];
  markSuccess: boolean;
}

export interface RetryPolicy {
  limit: number;
  intervalSec: number;
  /** Multiplier; 1 means constant interval (backoff: false/absent), true means 2. */
  backoff: number;
  /** 0 means no cap. */
  maxIntervalSec: number;
  /** Empty means any non-zero exit code is retried. */
  exitCode: number[];
}

export interface RepeatPolicy {
  mode: 'while' | 'until';
  intervalSec: number;
  backoff: number;
  maxIntervalSec: number;
  /** 0 means no limit. */
  limit: number;
  condition?: string;
  expected?: string;
  exitCode: number[];
}

export interface ParallelConfig {
  /** Literal items, or a single `${VAR}` reference string resolved at run time. */
  items: Array<string | number | boolean | Record<string, unknown>> | string;
  /** 0 means no limit. */
  maxConcurrent: number;
}

export interface OutputConfig {
  name: string;
  /** Key in outputs.json; default camelCase of name. */
  key: string;
  omit: boolean;
}

export interface ContainerConfig {
  /** Exec mode: name of a running container. */
  exec?: string;
  name?: string;
  image?: string;
  pullPolicy: 'always' | 'missing' | 'never';
  env: string[];
  volumes: string[];
  workingDir?: string;
  platform?: string;
  user?: string;
  ports: string[];
  network?: string;
  startup: 'keepalive' | 'entrypoint' | 'command';
  command: string[];
  waitFor: 'running' | 'healthy';
  logPattern?: string;
  restartPolicy: 'no' | 'always' | 'unless-stopped';
  keepContainer: boolean;
  shell: string[];
}

export interface SshConfig {
  user?: string;
  host?: string;
  port: string;
  key?: string;
  password?: string;
  strictHostKey: boolean;
  knownHostFile?: string;
  shell?: string[];
}

export interface LlmConfig {
  provider?: string;
  model?: string;
  system?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  baseURL?: string;
  apiKey?: string;
  stream: boolean;
  tools: string[];
  maxToolIterations: number;
  thinking?: { enabled: boolean; effort?: 'low' | 'medium' | 'high' | 'xhigh' };
}

export interface RedisConfig {
  url?: string;
  host?: string;
  port: number;
  password?: string;
  username?: string;
  db?: number;
  tls?: boolean;
  mode: 'standalone' | 'sentinel' | 'cluster';
  sentinelMaster?: string;
  sentinelAddrs: string[];
  clusterAddrs: string[];
}

export interface S3Config {
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  bucket?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
}

export interface SmtpConfig {
  host?: string;
  port?: string;
  username?: string;
  password?: string;
}

export interface OtelConfig {
  enabled: boolean;
  endpoint?: string;
  headers: Record<string, string>;
  insecure: boolean;
  /** Milliseconds. */
  timeoutMs?: number;
  resource: Record<string, string>;
}

export interface MailConfig {
  from?: string;
  to: string[];
  prefix?: string;
  attachLogs: boolean;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * The `kubernetes` block (DAG and step level): settings of the step Pods the operator creates; the
 * embedded engine ignores it. Kept as written, except scalars of string maps and quantities as text.
 * A step's block is merged over the DAG's field by field (kubernetes.ts `mergeKubernetes`).
 */
export interface KubernetesBlock {
  /** Quantities as text ("500m", "1Gi", "2"). */
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  serviceAccountName?: string;
  /** Merged under workerSelector in the Pod's nodeSelector (workerSelector wins on a shared key). */
  nodeSelector?: Record<string, string>;
  tolerations?: KubernetesToleration[];
  /** A Pod affinity as Kubernetes spells it, passed through. */
  affinity?: Record<string, unknown>;
  /** Never svc.io/* nor app.kubernetes.io/managed-by (refused at validation). */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Secret names. */
  imagePullSecrets?: string[];
  volumes?: KubernetesVolume[];
  /** Each names one of `volumes`. */
  volumeMounts?: KubernetesVolumeMount[];
  /** The step container's securityContext, passed through. */
  securityContext?: Record<string, unknown>;
  /** The Pod's securityContext, passed through. */
  podSecurityContext?: Record<string, unknown>;
  priorityClassName?: string;
}

export interface KubernetesToleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

export interface KeyToPath {
  key: string;
  path: string;
}

/** A Pod volume with exactly one source. */
export interface KubernetesVolume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  configMap?: { name: string; items?: KeyToPath[] };
  secret?: { secretName: string; items?: KeyToPath[] };
  emptyDir?: { medium?: string; sizeLimit?: string };
}

export interface KubernetesVolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

/** Step types after alias normalisation (github_action and github-action become gha; command becomes shell). */
export type StepType =
  | 'shell' | 'ssh' | 's3' | 'http' | 'archive' | 'mail' | 'jq' | 'redis' | 'chat' | 'hitl' | 'dag'
  | 'gha' | 'container' | 'postgres' | 'sqlite';

export interface StepDefinition {
  name: string;
  id?: string;
  description?: string;
  type: StepType;
  /** Each entry is one command line; several run in sequence and stop on the first failure. Empty when none. */
  commands: string[];
  script?: string;
  /** Sub-DAG name (from `call`, `run`, or the command of a `type: dag` step). */
  call?: string;
  /** Sub-DAG params or executor inputs; an object stays an object. */
  params?: string | Record<string, unknown>;
  /** Final dependencies by step name: chain order already injected, ids resolved to names. */
  depends: string[];
  workingDir?: string;
  shell?: string[];
  stdout?: string;
  stderr?: string;
  logOutput?: LogOutput;
  output?: OutputConfig;
  env: EnvEntry[];
  timeoutSec?: number;
  signalOnStop: string;
  mailOnError: boolean;
  config: Record<string, unknown>;
  container?: ContainerConfig;
  ssh?: SshConfig;
  llm?: LlmConfig;
  messages: ChatMessage[];
  parallel?: ParallelConfig;
  preconditions: Precondition[];
  continueOn: ContinueOn;
  retryPolicy?: RetryPolicy;
  repeatPolicy?: RepeatPolicy;
  workerSelector?: Record<string, string>;
  kubernetes?: KubernetesBlock;
}

export interface DagDefinition {
  name: string;
  description?: string;
  group?: string;
  tags: Tag[];
  type: 'chain' | 'graph';
  schedule: Schedule;
  skipIfSuccessful: boolean;
  restartWaitSec: number;
  maxActiveRuns: number;
  maxActiveSteps: number;
  timeoutSec: number;
  delaySec: number;
  maxCleanUpTimeSec: number;
  preconditions: Precondition[];
  runConfig: { disableParamEdit: boolean; disableRunIdEdit: boolean };
  queue?: string;
  workerSelector?: Record<string, string>;
  kubernetes?: KubernetesBlock;
  params: ParamDef[];
  env: EnvEntry[];
  secrets: SecretRef[];
  /** Files in load order, `.env` first unless the user gave an empty array. */
  dotenv: string[];
  /** As written; absent means the directory of the DAG file (or the parent's for local sub-DAGs). */
  workingDir?: string;
  shell?: string[];
  logDir?: string;
  logOutput: LogOutput;
  histRetentionDays: number;
  maxOutputSize: number;
  container?: ContainerConfig;
  registryAuths: Record<string, { username: string; password: string }>;
  ssh?: SshConfig;
  llm?: LlmConfig;
  redis?: RedisConfig;
  s3?: S3Config;
  smtp?: SmtpConfig;
  otel?: OtelConfig;
  mailOn: { success: boolean; failure: boolean; wait: boolean };
  errorMail?: MailConfig;
  infoMail?: MailConfig;
  waitMail?: MailConfig;
  handlerOn: Partial<Record<HandlerKind, StepDefinition>>;
  skipBaseHandlers: boolean;
  steps: StepDefinition[];
}

/** One loaded file: the main DAG and its local sub-DAGs (documents 2..n). */
export interface LoadedDagFile {
  /** Absent when the main document is too broken to build. */
  dag?: DagDefinition;
  localDags: Array<{ name: string; dag?: DagDefinition; errors: string[] }>;
  /** Every problem of every document, each message naming the field (for example `steps[2].retryPolicy.limit: must be an integer`). */
  errors: string[];
}
