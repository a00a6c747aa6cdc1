/**
 * Steps of a DAG-level `container` (SPEC 2.5): each runs inside the run's one container Pod (run-pod.ts),
 * whose agent (the entry binary) takes requests from files on the shared data volume and writes the same
 * logs and result files a step Pod's entry writes. The operator writes a request, then waits for the
 * result (or for the Pod to die). Steps of a step-level `container` (or `image`) are ordinary step Pods.
 * - recordsStarts: a request file, then the result file, records that an execution began.
 * - request(): secret values in it are references the agent resolves from its Pod's env (run-secret.ts).
 * - signal(): a signal file the agent reads (`stop`: the step's signalOnStop), renamed into place.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiException, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { ExecRequest, Launcher, RunningExec } from '../../../core/ports/executor.js';
import type { ContainerConfig } from '../../../core/spec/types.js';
import { commandArgvs } from '../../../core/exec-argv.js';
import { execName } from '../../../core/naming.js';
import { FIELD_MANAGER, kubeError } from '../../kube/client.js';
import { podOutcome, type EntryResult } from './outcome.js';
import { harvestResult } from './harvest.js';
import type { ExecResult } from '../../../core/run/state.js';
import type { FsPodFiles } from './fs-files.js';
import type { PodSettings } from './pod-spec.js';
import type { PodWatch } from './pod-watch.js';
import { runPod, runPodIdentity } from './run-pod.js';
import type { TokenBucket } from './rate-limit.js';
import { BadRequestError } from '../../../core/errors.js';
import { containerUserProblem, DEFAULT_POD_POLICY, type PodPolicy } from '../../../core/spec/pod-policy.js';
import { referenceParts } from '../../../core/secret-parts.js';
import { refsOfSecret, runSecretBody, runSecretPlan } from './run-secret.js';

export interface AgentLauncherOptions {
  settings: PodSettings;
  /** The run container's agent takes its requests through files on the shared data volume. */
  files: FsPodFiles;
  owner(key: { dagName: string; dagRunId: string }): Promise<{ name: string; uid: string }>;
  /** The agent directory of a run attempt, on the shared volume. */
  agentDir(req: ExecRequest): string;
  /** How often a waiting execution looks for its result file. */
  pollMs?: number;
  /** Paces Pod creation (shared with the step Pods). */
  createLimit?: TokenBucket;
  /** Whether the container may run as root (core/spec/pod-policy.ts); the default policy when not given. */
  policy?: PodPolicy;
}

const SCRIPT_PLACEHOLDER = '\u0000script';

export class AgentLauncher implements Launcher {
  readonly recordsStarts = true;
  private readonly api: CoreV1Api;
  /** The references of each run container's Secret (form → variable), by Pod name; read back after a restart. */
  private readonly refs = new Map<string, Map<string, string>>();

  constructor(kc: KubeConfig, private readonly watch: PodWatch, private readonly opts: AgentLauncherOptions) {
    this.api = kc.makeApiClient(CoreV1Api);
  }

  private requestFile(req: ExecRequest): string {
    return join(this.opts.agentDir(req), 'requests', `${execName(req.identity)}.json`);
  }

  async begun(req: ExecRequest): Promise<boolean> {
    return (await this.opts.files.hasResult(req)) || existsSync(this.requestFile(req));
  }

  async ensure(req: ExecRequest, o: { fresh: boolean }): Promise<RunningExec | undefined> {
    const container = req.container;
    if (!container) throw new Error('a step of a DAG-level container without the DAG\'s container');
    if (container.exec !== undefined) throw new Error(`container exec mode (a running Docker container "${container.exec}") is not available on Kubernetes: give the container an image`);
    if (!o.fresh) {
      const recorded = await this.opts.files.readResult(req);
      if (recorded) return { result: this.harvest(req, recorded), signal: () => undefined };
      if (!existsSync(this.requestFile(req)) && !this.runPodAlive(req)) return undefined;
    } else {
      await this.ensureRunPod(req, container);
      await this.request(req);
    }
    return this.follow(req);
  }

  /** A finished run's container Pod goes, unless the DAG keeps it (`keepContainer`); its Secret goes either way (read at the Pod's start). */
  async endRun(run: { dagName: string; dagRunId: string; attemptId: string }, keep: boolean): Promise<void> {
    const name = execName(runPodIdentity(run));
    if (this.refs.delete(name) || this.watch.get(name)) await this.deleteIgnoringGone(() => this.api.deleteNamespacedSecret({ name, namespace: this.opts.settings.namespace }), `secrets/${name}`);
    if (keep || !this.watch.get(name)) return;
    await this.deleteIgnoringGone(() => this.api.deleteNamespacedPod({ name, namespace: this.opts.settings.namespace }), `pods/${name}`);
  }

  private async deleteIgnoringGone(del: () => Promise<unknown>, what: string): Promise<void> {
    try {
      await del();
    } catch (e) {
      if (!(e instanceof ApiException && e.code === 404)) throw kubeError(e, what);
    }
  }

  private runPodName(req: ExecRequest): string {
    return execName(runPodIdentity(req.identity));
  }

  private runPodAlive(req: ExecRequest): boolean {
    const pod = this.watch.get(this.runPodName(req));
    return pod !== undefined && !podOutcome(pod);
  }

  /** The run's Secret first (the Pod's env names it), then the Pod. */
  private async ensureRunPod(req: ExecRequest, c: ContainerConfig): Promise<void> {
    if (this.watch.get(this.runPodName(req))) return;
    const refused = containerUserProblem(c, this.opts.policy ?? DEFAULT_POD_POLICY);
    if (refused) throw new BadRequestError(`the install's pod policy refuses the run's container Pod: ${refused}`);
    const owner = await this.opts.owner(req.identity);
    const name = this.runPodName(req);
    const plan = runSecretPlan(name, c, req.secrets);
    if (Object.keys(plan.data).length > 0) {
      const secret = runSecretBody(name, this.opts.settings.namespace, owner, plan.data);
      // One left by an operator that stopped before the Pod holds the values it had: read back when used.
      if (await this.createIgnoringExisting(() => this.api.createNamespacedSecret({ namespace: this.opts.settings.namespace, body: secret, fieldManager: FIELD_MANAGER }), `secrets/${name}`)) this.refs.set(name, plan.refs);
    }
    const body = runPod(runPodIdentity(req.identity), c, this.opts.agentDir(req), owner, this.opts.settings, plan.env);
    await this.opts.createLimit?.take();
    await this.createIgnoringExisting(() => this.api.createNamespacedPod({ namespace: this.opts.settings.namespace, body, fieldManager: FIELD_MANAGER }), `pods/${name}`);
  }

  /** Whether it was created (false: it existed). */
  private async createIgnoringExisting(create: () => Promise<unknown>, what: string): Promise<boolean> {
    try {
      await create();
      return true;
    } catch (e) {
      if (!(e instanceof ApiException && e.code === 409)) throw kubeError(e, what);
      return false;
    }
  }

  /** The references of the run's Secret: as made, or read back (a restarted operator, another replica's Pod). */
  private async runRefs(req: ExecRequest): Promise<Map<string, string>> {
    const name = this.runPodName(req);
    const known = this.refs.get(name);
    if (known || !req.secrets.some(Boolean)) return known ?? new Map();
    try {
      const refs = refsOfSecret(await this.api.readNamespacedSecret({ name, namespace: this.opts.settings.namespace }));
      this.refs.set(name, refs);
      return refs;
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return new Map();
      throw kubeError(e, `secrets/${name}`);
    }
  }

  /** The request, written atomically (the agent never reads half of one); secret values only by reference. */
  private async request(req: ExecRequest): Promise<void> {
    const argvs = commandArgvs(req, req.script !== undefined ? SCRIPT_PLACEHOLDER : undefined);
    const scriptArg = req.script !== undefined ? argvs[0]!.indexOf(SCRIPT_PLACEHOLDER) : -1;
    const paths = this.opts.files.paths(req);
    const secrets = req.secrets.filter(Boolean);
    const refs = await this.runRefs(req);
    const text = (t: string) => referenceParts(t, refs, secrets);
    const commands = scriptArg >= 0 ? [argvs[0]!.map((a, i) => (i === scriptArg ? '' : a)), ...argvs.slice(1)] : argvs;
    const body = {
      id: execName(req.identity), stdout: paths.stdout, stderr: paths.stderr, result: paths.result,
      commands: commands.map((argv) => argv.map(text)),
      ...(req.script !== undefined ? { script: text(req.script) } : {}), scriptArg,
      stopSignal: req.step.signalOnStop || 'SIGTERM', timeoutMs: req.timeoutMs,
      masks: secrets.map(text), env: Object.fromEntries(Object.entries(req.env).map(([k, v]) => [k, text(v)])),
      workingDir: req.workingDir && req.workingDir !== '/' ? req.workingDir : '',
    };
    const file = this.requestFile(req);
    await mkdir(join(this.opts.agentDir(req), 'requests'), { recursive: true });
    await mkdir(join(this.opts.agentDir(req), 'signals'), { recursive: true });
    await writeFile(`${file}.tmp`, JSON.stringify(body), { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  private follow(req: ExecRequest): RunningExec {
    let stopping: string | undefined;
    const result = new Promise<EntryResult>((resolve) => {
      const timer = setInterval(() => void check(), this.opts.pollMs ?? 50);
      let done = false;
      const check = async (): Promise<void> => {
        if (done) return;
        const r = await this.opts.files.readResult(req).catch(() => undefined);
        const dead = !r && !this.runPodAlive(req) && this.watch.isSynced ? this.deadPodResult(req, stopping) : undefined;
        if (!r && !dead) return;
        done = true;
        clearInterval(timer);
        resolve(r ?? dead!);
      };
      void check();
    });
    return {
      result: result.then((r) => this.harvest(req, r)),
      signal: (sig) => {
        stopping = sig;
        void this.sendSignal(req, sig === 'SIGKILL' ? 'SIGKILL' : 'stop').catch(() => undefined);
      },
    };
  }

  /**
   * A signal file, renamed into place: the agent never reads an empty one (it would drop it and the
   * stop would be lost). The temporary name starts with a dot, which the agent skips.
   */
  private async sendSignal(req: ExecRequest, what: string): Promise<void> {
    const dir = join(this.opts.agentDir(req), 'signals');
    const name = execName(req.identity);
    const tmp = join(dir, `.${name}.${process.pid}.${randomUUID()}`);
    await writeFile(tmp, what);
    await rename(tmp, join(dir, name));
  }

  /** The run's container is gone (or never started) while the step waited for it. */
  private deadPodResult(req: ExecRequest, stopping: string | undefined): EntryResult {
    const pod = this.watch.get(this.runPodName(req));
    const end = pod ? podOutcome(pod) : undefined;
    if (stopping) return { exitCode: 137, signal: stopping, error: `signal: ${stopping}` };
    return { exitCode: 1, error: `the run's container Pod ${this.runPodName(req)} ${pod ? `ended (${end?.error ?? 'exit 0'})` : 'is gone'} before the step finished` };
  }

  private async harvest(req: ExecRequest, r: EntryResult): Promise<ExecResult> {
    const result = await harvestResult(this.opts.files, req, r);
    await rm(this.requestFile(req), { force: true });
    return result;
  }
}

/**
 * The launcher of `container` steps: a step with its own container (or image) is a step Pod of that
 * image; a step of a DAG-level container runs in the run's container Pod.
 */
export function containerSteps(stepPods: Launcher, agent: AgentLauncher | undefined): Launcher {
  const of = (req: ExecRequest): Launcher => (!req.container ? stepPods : agent ?? NO_RUN_CONTAINERS);
  return {
    recordsStarts: true,
    begun: (req) => of(req).begun(req),
    ensure: (req, o) => of(req).ensure(req, o),
  };
}

/** Without the data claim (step logs in a bucket), a run container's agent has no way to take requests. */
const NO_RUN_CONTAINERS: Launcher = {
  recordsStarts: true,
  begun: () => false,
  ensure: async () => ({
    result: Promise.resolve({ exitCode: 1, error: 'a DAG-level container runs its steps through the shared data claim (SVC_DATA_CLAIM), and this operator keeps step logs in a bucket (SVC_S3_BUCKET): use a step-level container (each step its own Pod) instead' }),
    signal: () => undefined,
  }),
};
