/**
 * The Pod of one step execution (ARCHITECTURE "Kubernetes execution"): pure, from the execution request
 * and the operator's settings. Named from the execution's identity (creating it twice adopts it), owned by
 * its DagRun, labelled for the run, step and attempt. The step container runs the svc entry binary as
 * PID 1 (src/entry): it runs the commands with stdout and stderr apart, passes both through (kubectl logs)
 * and appends them to the step's log files on the shared volume, and records the outcome there.
 * Values of secrets never appear in the Pod: env vars holding one come from a Secret of the execution.
 * The request's `kubernetes` block (the DAG's with the step's over it) adds resources, placement, identity,
 * metadata, volumes and security settings; svc's own labels, annotations and volumes always win, and so
 * do the hardened security settings (pod-hardening.ts).
 */
import type { V1Container, V1EnvVar, V1Pod, V1PodSpec, V1Secret, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { isAbsolute, relative } from 'node:path';
import type { ExecRequest } from '../../../core/ports/executor.js';
import type { KubernetesBlock } from '../../../core/spec/types.js';
import { commandArgvs } from '../../../core/exec-argv.js';
import { encodeMasks, isRunStepType, runStepRequest, STEP_ERROR_ENV, STEP_MASK_ENV, STEP_REQUEST_ENV } from '../../../core/run-step.js';
import { carriesSecret } from '../../../core/secret-values.js';
import { execName, labelValue, SVC_LABELS } from '../../../core/naming.js';
import { API_VERSION } from '../../../core/resources.js';
import { hardenedContainer, hardenedPod } from './pod-hardening.js';

/** Labels of every step Pod (the operator's informer selects `svc.io/component=step`). */
export const POD_LABELS = { component: 'svc.io/component', run: 'svc.io/run', step: 'svc.io/step', attempt: 'svc.io/attempt', managedBy: 'app.kubernetes.io/managed-by' } as const;
/** The Pods the operator watches: step Pods and run-scoped container Pods. */
export const STEP_SELECTOR = `${POD_LABELS.component} in (step,run-container)`;
export const STEP_CONTAINER = 'step';
/** The exact identity of the execution, as JSON. */
export const IDENTITY_ANNOTATION = 'svc.io/exec-identity';

/** How the entry binary reaches the step's image: an image volume (Kubernetes 1.33+), or copied by an init container. */
export type EntryDelivery = 'image-volume' | 'init-container';
/** Where the svc image holds the entry binary. */
export const ENTRY_IN_IMAGE = '/usr/local/bin/svc-entry';
const ENTRY_MOUNT = '/.svc';
const SCRIPT_ENV = 'SVC_STEP_SCRIPT';
/**
 * The env var holding the command list (JSON argv arrays) the entry runs: never in the container's args,
 * where a secret expanded into a command would be in the Pod's spec; from the execution's Secret when it
 * carries one. The entry keeps it out of the commands' environment.
 */
const COMMANDS_ENV = 'SVC_COMMANDS';
/** Replaced by the entry with the path of the script file it writes. */
const SCRIPT_PLACEHOLDER = '\u0000script';

export interface PodSettings {
  namespace: string;
  /** The image of steps that name none. */
  stepImage: string;
  /** The svc image (holds the entry binary). */
  entryImage: string;
  entryDelivery: EntryDelivery;
  /** The volume holding the log files, mounted where the operator sees it; none when the files are on the node (the test bed). */
  dataVolume?: { claimName: string; mountPath: string };
  serviceAccountName?: string;
  /** Seconds between the stop signal and SIGKILL. */
  stopGraceSeconds: number;
}

export interface PodFilePaths {
  stdout: string;
  stderr: string;
  result: string;
  /** The directory holding all of them (the run attempt's): all of the data volume a step Pod mounts. */
  root: string;
  /**
   * Instead of files: the upload grant (JSON) by which the entry sends the logs and the result to the
   * bucket (s3-files.ts); it reaches the Pod through the execution's Secret.
   */
  upload?: string;
  /** The key (base64) with which the entry seals stdout in the log store (seal.ts): an unlogged probe's. */
  seal?: string;
}

export interface StepPod {
  pod: V1Pod;
  /** The execution's Secret (env vars holding secret values, the mask list), when it needs one. */
  secret?: V1Secret;
}

export function stepPod(req: ExecRequest, owner: { name: string; uid: string }, files: PodFilePaths, s: PodSettings): StepPod {
  const name = execName(req.identity);
  const { env, secret } = podEnv(req, name, s.namespace, owner, files);
  const meta = podMetadata(req, name, s.namespace, owner);
  // A copy: the Pod never shares an object with the run's definition.
  const k = structuredClone(req.kubernetes ?? {});
  const container: V1Container = {
    name: STEP_CONTAINER,
    // A step-level `container` (SPEC 2.5) names the step's image, env and working directory; an http, jq,
    // ssh... step runs `svc run-step` in the svc image (core/run-step.ts).
    image: isRunStepType(req.step.type) ? s.entryImage : req.step.container?.image ?? s.stepImage,
    command: [entryPath(s.entryDelivery), 'run', ...entryArgs(req, files, env.some((e) => e.name === MASK_ENV))],
    env: [...containerEnv(req.step.container?.env ?? []), ...env],
    // The operator's runs default to `/`: a step that names no directory runs in its image's WORKDIR.
    ...(req.workingDir && req.workingDir !== '/' ? { workingDir: req.workingDir } : req.step.container?.workingDir ? { workingDir: req.step.container.workingDir } : {}),
    ...(k.resources ? { resources: k.resources } : {}),
    securityContext: hardenedContainer(k.securityContext),
    volumeMounts: [...entryMounts(s, files.root), ...(k.volumeMounts ?? [])],
  };
  const timeoutSeconds = req.timeoutMs > 0 ? Math.ceil(req.timeoutMs / 1000) : 0;
  const nodeSelector = { ...k.nodeSelector, ...req.workerSelector };
  const pod: V1Pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: meta,
    spec: {
      restartPolicy: 'Never',
      enableServiceLinks: false,
      terminationGracePeriodSeconds: s.stopGraceSeconds,
      // A backstop only: the entry enforces the step's timeout itself.
      ...(timeoutSeconds > 0 ? { activeDeadlineSeconds: timeoutSeconds + s.stopGraceSeconds + 30 } : {}),
      ...identity(k, s),
      ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
      ...scheduling(k),
      ...(s.entryDelivery === 'init-container' ? { initContainers: [copyEntry(s.entryImage)] } : {}),
      containers: [container],
      volumes: [...entryVolumes(s), ...(k.volumes ?? [])],
    },
  };
  return { pod, ...(secret ? { secret } : {}) };
}

/**
 * The Pod's ServiceAccount: the block's over the operator's setting. Without a block's account the Pod gets
 * no token (steps do not talk to the API server); a step that names one does, as that account says.
 */
function identity(k: KubernetesBlock, s: PodSettings): Partial<V1PodSpec> {
  const account = k.serviceAccountName ?? s.serviceAccountName;
  return {
    ...(k.serviceAccountName ? {} : { automountServiceAccountToken: false }),
    ...(account ? { serviceAccountName: account } : {}),
    ...(k.imagePullSecrets?.length ? { imagePullSecrets: k.imagePullSecrets.map((n) => ({ name: n })) } : {}),
    securityContext: hardenedPod(k.podSecurityContext, k.securityContext),
  };
}

function scheduling(k: KubernetesBlock): Partial<V1PodSpec> {
  return {
    ...(k.tolerations?.length ? { tolerations: k.tolerations } : {}),
    ...(k.affinity ? { affinity: k.affinity } : {}),
    ...(k.priorityClassName ? { priorityClassName: k.priorityClassName } : {}),
  };
}

/** svc's labels and annotations are written last: a block's key of svc's (refused at validation anyway) never replaces them. */
function podMetadata(req: ExecRequest, name: string, namespace: string, owner: { name: string; uid: string }): NonNullable<V1Pod['metadata']> {
  const e = req.identity;
  const k = req.kubernetes ?? {};
  return {
    name, namespace,
    labels: {
      ...k.labels,
      [POD_LABELS.component]: 'step', [POD_LABELS.managedBy]: 'svc-operator',
      [SVC_LABELS.dag]: labelValue(e.dagName), [SVC_LABELS.dagRun]: labelValue(e.dagRunId), [POD_LABELS.run]: owner.name,
      [POD_LABELS.step]: labelValue(e.probe === undefined ? e.node || 'run' : `${e.node || 'run'}.${e.probe}`), [POD_LABELS.attempt]: String(e.attempt),
    },
    annotations: { ...k.annotations, [IDENTITY_ANNOTATION]: JSON.stringify(e), 'kubectl.kubernetes.io/default-container': STEP_CONTAINER },
    ownerReferences: [{ apiVersion: API_VERSION, kind: 'DagRun', name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: false }],
  };
}

/** Where the step container finds the entry binary. */
export function entryPath(d: EntryDelivery): string {
  return d === 'image-volume' ? `${ENTRY_MOUNT}${ENTRY_IN_IMAGE}` : `${ENTRY_MOUNT}/svc-entry`;
}

function entryArgs(req: ExecRequest, files: PodFilePaths, masks: boolean): string[] {
  const where = files.upload !== undefined ? ['--upload-env', UPLOAD_ENV] : ['--stdout', files.stdout, '--stderr', files.stderr, '--result', files.result];
  if (isRunStepType(req.step.type)) {
    return [
      ...where, '--stop-signal', req.step.signalOnStop || 'SIGTERM', ...(req.timeoutMs > 0 ? ['--timeout-ms', String(req.timeoutMs)] : []),
      ...(masks ? ['--mask-env', MASK_ENV] : []), '--error-file-env', STEP_ERROR_ENV, '--commands-env', COMMANDS_ENV,
    ];
  }
  const { scriptAt } = entryCommands(req);
  return [
    ...where,
    '--stop-signal', req.step.signalOnStop || 'SIGTERM',
    ...(req.timeoutMs > 0 ? ['--timeout-ms', String(req.timeoutMs)] : []),
    ...(scriptAt >= 0 ? ['--script-env', SCRIPT_ENV, '--script-arg', String(scriptAt)] : []),
    ...(masks ? ['--mask-env', MASK_ENV] : []),
    // A probe whose output only its result may carry (a secret file's content): not in kubectl logs either.
    ...(req.unlogged ? ['--quiet'] : []),
    ...(files.seal !== undefined ? ['--seal-env', SEAL_ENV] : []),
    '--commands-env', COMMANDS_ENV,
  ];
}

/** The argv arrays the entry runs, with an empty word where the script's path goes. */
function entryCommands(req: ExecRequest): { commands: string[][]; scriptAt: number } {
  if (isRunStepType(req.step.type)) return { commands: [['svc', 'run-step']], scriptAt: -1 };
  const argvs = commandArgvs(req, req.script !== undefined ? SCRIPT_PLACEHOLDER : undefined);
  const scriptAt = req.script !== undefined ? argvs[0]!.indexOf(SCRIPT_PLACEHOLDER) : -1;
  return { commands: scriptAt >= 0 ? [argvs[0]!.map((a, i) => (i === scriptAt ? '' : a)), ...argvs.slice(1)] : argvs, scriptAt };
}

/** Env var (from the execution's Secret) listing the secret values to mask, one per line. */
const MASK_ENV = STEP_MASK_ENV;
/** Env var (from the execution's Secret) holding the upload grant, when logs go to a bucket. */
const UPLOAD_ENV = 'SVC_UPLOAD';
/** Env var (from the execution's Secret) holding the key that seals an unlogged probe's stdout. */
const SEAL_ENV = 'SVC_SEAL';

/**
 * The container's env: plain values, except those holding a secret, which come from the execution's
 * Secret (with the mask list), owned by the DagRun.
 */
/** Whether an execution's Pod comes with a Secret of its own (secret env values, an upload grant). */
export function hasExecSecret(req: ExecRequest, upload: boolean): boolean {
  return upload || !!req.unlogged || req.secrets.some((v) => v.length > 0);
}

function podEnv(req: ExecRequest, name: string, namespace: string, owner: { name: string; uid: string }, files: Pick<PodFilePaths, 'upload' | 'seal'>): { env: V1EnvVar[]; secret?: V1Secret } {
  const { upload } = files;
  const secrets = req.secrets.filter((v) => v.length > 0);
  const all = podVariables(req);
  const env: V1EnvVar[] = [];
  const data: Record<string, string> = {};
  Object.keys(all).forEach((k, i) => {
    const v = all[k]!;
    // Decoded, not as serialised: a secret with a quote, backslash or newline is escaped in a JSON value.
    // The command list is judged by the commands as written too (split into words, a secret may be cut).
    if (carriesSecret(v, secrets) || (k === COMMANDS_ENV && req.commands.some((c) => carriesSecret(c, secrets)))) {
      const key = `env${i}`;
      data[key] = Buffer.from(v).toString('base64');
      env.push({ name: k, valueFrom: { secretKeyRef: { name, key } } });
    } else {
      env.push({ name: k, value: v });
    }
  });
  if (!hasExecSecret(req, upload !== undefined)) return { env };
  if (secrets.length > 0) {
    data.mask = Buffer.from(encodeMasks(secrets)).toString('base64');
    env.push({ name: MASK_ENV, valueFrom: { secretKeyRef: { name, key: 'mask' } } });
  }
  if (upload !== undefined) {
    data.upload = Buffer.from(upload).toString('base64');
    env.push({ name: UPLOAD_ENV, valueFrom: { secretKeyRef: { name, key: 'upload' } } });
  }
  if (files.seal !== undefined) {
    data.seal = Buffer.from(files.seal).toString('base64');
    env.push({ name: SEAL_ENV, valueFrom: { secretKeyRef: { name, key: 'seal' } } });
  }
  const secret: V1Secret = {
    apiVersion: 'v1', kind: 'Secret', type: 'Opaque', data,
    metadata: { name, namespace, labels: { [POD_LABELS.component]: 'step', [POD_LABELS.managedBy]: 'svc-operator' }, ownerReferences: [{ apiVersion: API_VERSION, kind: 'DagRun', name: owner.name, uid: owner.uid }] },
  };
  return { env, secret };
}

/**
 * The step's variables in its Pod. An svc-code step gets its request (the script is part of it) and the
 * svc image's PATH (where `svc` is), not the operator's.
 */
function podVariables(req: ExecRequest): Record<string, string> {
  const commands = { [COMMANDS_ENV]: JSON.stringify(entryCommands(req).commands) };
  if (!isRunStepType(req.step.type)) return { ...req.env, ...(req.script !== undefined ? { [SCRIPT_ENV]: req.script } : {}), ...commands };
  const { PATH: _path, ...env } = req.env;
  return { ...env, [STEP_REQUEST_ENV]: JSON.stringify(runStepRequest(req)), ...commands };
}

/** The init container that copies the entry binary in (`init-container` delivery). */
export function copyEntry(image: string): V1Container {
  return { name: 'svc-entry', image, command: [ENTRY_IN_IMAGE, 'copy', `${ENTRY_MOUNT}/svc-entry`], securityContext: hardenedContainer(), volumeMounts: [{ name: 'svc-entry', mountPath: ENTRY_MOUNT }] };
}

/** svc's own volumes: the entry binary, and the data volume when there is one. */
export function entryVolumes(s: PodSettings): V1Volume[] {
  const entry: V1Volume = s.entryDelivery === 'image-volume'
    ? { name: 'svc-entry', image: { reference: s.entryImage, pullPolicy: 'IfNotPresent' } }
    : { name: 'svc-entry', emptyDir: {} };
  return [entry, ...(s.dataVolume ? [{ name: 'svc-data', persistentVolumeClaim: { claimName: s.dataVolume.claimName } }] : [])];
}

/**
 * Where svc's own volumes are mounted in the step container: the entry binary, and of the data volume only
 * `root` (the run attempt's directory), at the path the operator sees it: a step can write its own run's
 * logs and results, and nothing else of svc's state.
 */
export function entryMounts(s: PodSettings, root: string): V1VolumeMount[] {
  const entry: V1VolumeMount = { name: 'svc-entry', mountPath: ENTRY_MOUNT, readOnly: true };
  if (!s.dataVolume) return [entry];
  const sub = relative(s.dataVolume.mountPath, root);
  const inside = sub !== '' && !sub.startsWith('..') && !isAbsolute(sub);
  return [entry, inside ? { name: 'svc-data', mountPath: root, subPath: sub } : { name: 'svc-data', mountPath: s.dataVolume.mountPath }];
}

/** A container's `env` (KEY=VALUE items) as the Pod's env; the step's own variables come after and win. */
export function containerEnv(items: string[]): V1EnvVar[] {
  return items.map((kv) => {
    const eq = kv.indexOf('=');
    return eq > 0 ? { name: kv.slice(0, eq), value: kv.slice(eq + 1) } : { name: kv, value: '' };
  });
}
