/**
 * The Pod launcher: the Launcher port on Kubernetes. One Pod per step execution (pod-spec.ts), created
 * by name from the execution's identity, so `AlreadyExists` means adopt and a step never runs twice.
 * - recordsStarts: the Pod object is the record of a start; once it is gone, the result file the entry
 *   wrote (on the shared volume) is: begun() trusts either.
 * - The result is the entry's result file, else the Pod's status. Once read it is kept (the launcher
 *   writes the file when the entry could not), and the Pod is deleted unless retention keeps it.
 * - signal(): the Pod is deleted with the stop grace period; the container's SIGTERM reaches the entry,
 *   which sends the step's signalOnStop to the commands (SIGKILL: grace 0).
 */
import { ApiException, CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { ExecRequest, Launcher, RunningExec } from '../../../core/ports/executor.js';
import type { ExecResult } from '../../../core/run/state.js';
import type { RunKey } from '../../../core/ports/run-store.js';
import { execName } from '../../../core/naming.js';
import { FIELD_MANAGER, kubeError } from '../../kube/client.js';
import { podOutcome, podWaitReason as waitReason, type EntryResult } from './outcome.js';
import { hasExecSecret, stepPod, type PodFilePaths, type PodSettings } from './pod-spec.js';
import type { PodWatch } from './pod-watch.js';
import type { NodeLeases } from './node-leases.js';
import { harvestResult } from './harvest.js';
import { podAccessProblem } from './pod-access.js';
import { Sealer } from './seal.js';
import { BadRequestError } from '../../../core/errors.js';
import { blockPolicyProblems, DEFAULT_POD_POLICY, type PodPolicy } from '../../../core/spec/pod-policy.js';
import type { TokenBucket } from './rate-limit.js';

/** Where an execution's logs and result are, for the operator and for its Pod: files on a shared volume, or a bucket. */
export interface PodFiles {
  /** True when Pods get an upload grant (in their Secret) rather than file paths. */
  readonly uploads: boolean;
  /** What the Pod's entry is told: the files' paths, or an upload grant. */
  forPod(req: ExecRequest): Promise<PodFilePaths>;
  /** Whether the entry (or this launcher) recorded the execution's end. */
  hasResult(req: ExecRequest): Promise<boolean>;
  readResult(req: ExecRequest): Promise<EntryResult | undefined>;
  writeResult(req: ExecRequest, r: EntryResult): Promise<void>;
  /** Up to maxBytes of the stdout log; undefined when there is none. */
  readStdout(req: ExecRequest, maxBytes: number): Promise<string | undefined>;
  /** Removes an unlogged probe's output once read. */
  discard(req: ExecRequest): Promise<void>;
  /** Appends a line of svc's own to the execution's stderr log (why its Pod waits). */
  note(req: ExecRequest, line: string): Promise<void>;
}

/** Which finished Pods stay for debugging (kubectl logs, describe) until their DagRun is deleted. */
export type PodRetention = 'none' | 'failed' | 'all';

export interface PodLauncherOptions {
  settings: PodSettings;
  files: PodFiles;
  /** The DagRun that owns a run's Pods (its object name and uid). */
  owner(key: RunKey): Promise<{ name: string; uid: string }>;
  retention: PodRetention;
  /** A Pod the watch has not shown for this long is looked up directly (a create the watch missed). */
  recheckMs?: number;
  onError?(what: string, e: unknown): void;
  /** A Pod waits and says why (unschedulable...), or stopped waiting (undefined). */
  onWaiting?(req: ExecRequest, reason: string | undefined): void;
  /** Nodes that stopped heartbeating: their steps fail (and are deleted), so a retry runs elsewhere. */
  nodes?: NodeLeases;
  /** Paces Pod creation (a burst of runs must not flood the API server). */
  createLimit?: TokenBucket;
  /** svc's own Secrets and ServiceAccounts, which a step's `kubernetes` block may not name (pod-access.ts). */
  protect?: { secrets: readonly string[]; serviceAccounts: readonly string[] };
  /** What a step's block may ask of its Pod (core/spec/pod-policy.ts); the default policy when not given. */
  policy?: PodPolicy;
}

export class PodLauncher implements Launcher {
  readonly recordsStarts = true;
  private readonly api: CoreV1Api;
  /** Execution Secrets this launcher made and has not deleted yet (a step may not mount another's). */
  private readonly execSecrets = new Set<string>();
  /** Keys that seal the output of probes reading secrets in the log store. */
  private readonly sealer = new Sealer();

  constructor(kc: KubeConfig, private readonly watch: PodWatch, private readonly opts: PodLauncherOptions) {
    this.api = kc.makeApiClient(CoreV1Api);
  }

  async begun(req: ExecRequest): Promise<boolean> {
    return this.watch.get(execName(req.identity)) !== undefined || (await this.opts.files.hasResult(req));
  }

  async ensure(req: ExecRequest, opts: { fresh: boolean }): Promise<RunningExec | undefined> {
    const name = execName(req.identity);
    if (!opts.fresh) {
      const recorded = await this.opts.files.readResult(req);
      if (recorded) return this.done(req, name, recorded);
      if (!this.watch.get(name) && !(await this.exists(name))) return undefined;
      return this.follow(req, name);
    }
    await this.create(req);
    return this.follow(req, name);
  }

  private async create(req: ExecRequest): Promise<void> {
    this.checkAccess(req);
    const owner = await this.opts.owner(req.identity);
    const files = { ...await this.opts.files.forPod(req), ...(req.unlogged ? { seal: this.sealer.keyFor(execName(req.identity)) } : {}) };
    const { pod, secret } = stepPod(req, owner, files, this.opts.settings);
    const namespace = this.opts.settings.namespace;
    if (secret) this.execSecrets.add(secret.metadata!.name!);
    if (secret) await this.createIgnoringExisting(() => this.api.createNamespacedSecret({ namespace, body: secret, fieldManager: FIELD_MANAGER }), `secrets/${secret.metadata!.name}`);
    await this.opts.createLimit?.take();
    await this.createIgnoringExisting(() => this.api.createNamespacedPod({ namespace, body: pod, fieldManager: FIELD_MANAGER }), `pods/${pod.metadata!.name}`);
  }

  /**
   * Refuses (the step fails, saying why) a block that names svc's own objects, even where the install's
   * policy lists them (a prefix too wide), then one the pod policy refuses: the admission webhook and the
   * API checked the DAG, and a DagRun's snapshot (or a Dag written past the webhook) is checked again here.
   * An execution's Secret has its Pod's name: one this launcher made, or a step Pod the watch shows.
   */
  private checkAccess(req: ExecRequest): void {
    if (!req.kubernetes) return;
    const claim = this.opts.settings.dataVolume?.claimName;
    const protect = { secrets: this.opts.protect?.secrets ?? [], serviceAccounts: this.opts.protect?.serviceAccounts ?? [], claims: claim ? [claim] : [] };
    const problem = podAccessProblem(req.kubernetes, protect, (name) => this.execSecrets.has(name) || this.watch.get(name) !== undefined);
    if (problem) throw new BadRequestError(problem);
    const refused = blockPolicyProblems(req.kubernetes, this.opts.policy ?? DEFAULT_POD_POLICY);
    if (refused.length > 0) throw new BadRequestError(`the install's pod policy refuses this step's Pod: ${refused.join('; ')}`);
  }

  /** AlreadyExists is adoption: the object of this identity was created before (by a previous operator). */
  private async createIgnoringExisting(fn: () => Promise<unknown>, what: string): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (e instanceof ApiException && e.code === 409) return;
      throw kubeError(e, what);
    }
  }

  private async exists(name: string): Promise<boolean> {
    try {
      await this.api.readNamespacedPod({ name, namespace: this.opts.settings.namespace });
      return true;
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return false;
      throw kubeError(e, `pods/${name}`);
    }
  }

  /** Waits for the Pod to finish (or vanish), then harvests it. */
  private follow(req: ExecRequest, name: string): RunningExec {
    let stopping: string | undefined;
    const result = new Promise<EntryResult>((resolve) => {
      let settled = false;
      let waiting: string | undefined;
      const finish = (r: EntryResult): void => {
        if (settled) return;
        settled = true;
        unsubscribe();
        clearInterval(recheck);
        if (waiting) this.opts.onWaiting?.(req, undefined);
        resolve(r);
      };
      const seen = (pod: V1Pod | undefined): void => {
        if (!pod) return void this.afterDeletion(req, stopping).then(finish);
        const end = podOutcome(pod);
        const deleted = (r: EntryResult): EntryResult => (pod.metadata?.deletionTimestamp && !stopping && r.exitCode !== 0 ? deletedWhileRunning(req, r) : r);
        if (end) return void this.opts.files.readResult(req).then((r) => finish(deleted(r ?? end)), () => finish(deleted(end)));
        const why = waitReason(pod);
        if (why !== waiting) {
          waiting = why;
          this.opts.onWaiting?.(req, why);
          // The run says why its step does not start, where its people look: the step's log.
          if (why) void this.opts.files.note(req, `svc: the step's Pod ${name} is waiting: ${why}`).catch(() => undefined);
        }
      };
      const lost = (): void => {
        const pod = this.watch.get(name);
        const why = this.opts.nodes?.deadReason(pod?.spec?.nodeName);
        if (!pod || !why || podOutcome(pod)) return;
        void this.deletePod(name, 0);
        finish({ exitCode: 1, error: why });
      };
      const unwatch = this.watch.on(name, seen);
      const unwatchNodes = this.opts.nodes?.onChange(lost);
      const unsubscribe = (): void => { unwatch(); unwatchNodes?.(); };
      const recheck = setInterval(() => {
        if (this.watch.get(name)) return;
        void this.exists(name).then((there) => { if (!there) seen(undefined); }, () => undefined);
      }, this.opts.recheckMs ?? 30_000);
      recheck.unref();
      const now = this.watch.get(name);
      if (now) seen(now);
      lost();
    });
    return {
      result: result.then((r) => this.harvest(req, name, r)),
      signal: (sig) => {
        stopping = sig;
        void this.deletePod(name, sig === 'SIGKILL' ? 0 : this.opts.settings.stopGraceSeconds);
      },
    };
  }

  /** A Pod that is gone: what the entry recorded, else a failure that says what happened. */
  private async afterDeletion(req: ExecRequest, stopping: string | undefined): Promise<EntryResult> {
    const recorded = await this.opts.files.readResult(req).catch(() => undefined);
    if (recorded) return stopping || recorded.exitCode === 0 ? recorded : deletedWhileRunning(req, recorded);
    if (stopping) return { exitCode: 137, signal: stopping, error: `signal: ${stopping}` };
    return { exitCode: 1, error: `the step's Pod ${execName(req.identity)} was deleted before it finished` };
  }

  private done(req: ExecRequest, name: string, r: EntryResult): RunningExec {
    return { result: this.harvest(req, name, r), signal: () => undefined };
  }

  /**
   * Keeps the outcome, reads the captured output, removes the execution's Secret (its secret values and
   * grant are of no more use) and the Pod unless retention keeps it.
   */
  private async harvest(req: ExecRequest, name: string, r: EntryResult): Promise<ExecResult> {
    const result = await harvestResult(this.opts.files, req, r, req.unlogged ? this.sealer.keyFor(name) : undefined);
    const keep = this.opts.retention === 'all' || (this.opts.retention === 'failed' && r.exitCode !== 0);
    if (!keep && this.watch.get(name)) void this.deletePod(name, 0);
    if (hasExecSecret(req, this.opts.files.uploads)) void this.deleteSecret(name);
    return result;
  }

  private async deleteSecret(name: string): Promise<void> {
    this.execSecrets.delete(name);
    try {
      await this.api.deleteNamespacedSecret({ name, namespace: this.opts.settings.namespace });
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return;
      this.opts.onError?.(`delete secrets/${name}`, e);
    }
  }

  private async deletePod(name: string, graceSeconds: number): Promise<void> {
    try {
      await this.api.deleteNamespacedPod({ name, namespace: this.opts.settings.namespace, gracePeriodSeconds: graceSeconds });
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return;
      this.opts.onError?.(`delete pods/${name}`, e);
    }
  }
}

/** A Pod someone else deleted: the entry saw its container stopped; the step failed, and says why. */
function deletedWhileRunning(req: ExecRequest, r: EntryResult): EntryResult {
  return { ...r, error: `the step's Pod ${execName(req.identity)} was deleted while it ran (${r.signal ?? r.error ?? `exit status ${r.exitCode}`})` };
}
