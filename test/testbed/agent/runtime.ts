/**
 * Runs one Pod's containers as local processes, the way the kubelet runs them in a container runtime:
 * init containers in order (sidecars with restartPolicy Always keep running), then the app containers
 * with the Pod's restartPolicy and a crash-loop back-off, activeDeadlineSeconds, and graceful termination
 * (SIGTERM to each container's process group, SIGKILL after the grace period). It keeps the Pod's status
 * as the kubelet would report it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, containerEnv, expand } from './env.js';
import { containerArgv, imageRepository, type ImageEntrypoint } from './images.js';
import { LogWriter } from './logs.js';
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodStatus, Volume } from './types.js';
import { linkMounts, setUpVolume, writeTokenKubeconfig, type TokenServer, type VolumeDeps } from './volumes.js';

export interface RuntimeDeps extends Omit<VolumeDeps, 'warn' | 'podIP'> {
  podsDir: string;
  /** The IP the Pod reports (status.podIP, downward API); hostNetwork Pods report the host's, 127.0.0.1. */
  podIP: string;
  baseEnv: Record<string, string>;
  /** Where the kubeconfigs of projected service-account tokens point. */
  tokenServer: TokenServer;
  /** Called whenever the status changed; the agent coalesces and patches. */
  changed: (runner: PodRunner) => void;
  event: (pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string) => void;
  log: (msg: string) => void;
  /** Records a container's process group so `hack/testbed down` can sweep leftovers. */
  track: (pgid: number) => void;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** Image repository -> its ENTRYPOINT and CMD (containers without a command). */
  entrypoints: Record<string, ImageEntrypoint>;
}

const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };

class ContainerRun {
  restartCount = 0;
  state: ContainerState;
  lastState: ContainerState = {};
  proc?: ChildProcess;
  env?: Record<string, string>;
  cwd?: string;
  everStarted = false;
  done = false; // will not run again
  private exitWaiters: (() => void)[] = [];

  constructor(
    readonly spec: Container,
    readonly kind: 'init' | 'sidecar' | 'app',
  ) {
    this.state = { waiting: { reason: kind === 'app' ? 'PodInitializing' : 'PodInitializing' } };
  }
  get running(): boolean {
    return this.proc !== undefined && this.state.running !== undefined;
  }
  waitExit(): Promise<void> {
    return this.proc ? new Promise((r) => this.exitWaiters.push(r)) : Promise.resolve();
  }
  exited(): void {
    this.proc = undefined;
    this.exitWaiters.splice(0).forEach((w) => w());
  }
  status(): ContainerStatus {
    return {
      name: this.spec.name,
      image: this.spec.image ?? '',
      imageID: this.spec.image ? `svc-testbed://${this.spec.image}` : '',
      ...(this.state.running || this.state.terminated ? { containerID: `svc-testbed://${this.spec.name}-${this.restartCount}` } : {}),
      ready: this.running,
      started: this.running,
      restartCount: this.restartCount,
      state: this.state,
      lastState: this.lastState,
    };
  }
}

export class PodRunner {
  pod: Pod;
  readonly dir: string;
  readonly scratch: string;
  private readonly init: ContainerRun[];
  private readonly apps: ContainerRun[];
  private phase: PodStatus['phase'] = 'Pending';
  private reason?: string;
  private message?: string;
  private startTime?: string;
  private initialized = false;
  private sandboxReady = false;
  private terminating = false;
  private readonly conditionTimes = new Map<string, { status: string; time: string }>();
  private deadlineTimer?: NodeJS.Timeout;
  private readonly finished: Promise<void>;
  private resolveFinished!: () => void;
  /** Volume name -> the kubeconfig of the service-account token it projects. */
  private readonly kubeconfigs = new Map<string, string>();

  constructor(
    pod: Pod,
    private readonly deps: RuntimeDeps,
  ) {
    this.pod = pod;
    const m = pod.metadata;
    this.dir = path.join(deps.podsDir, `${m.namespace ?? 'default'}_${m.name}_${m.uid ?? ''}`);
    this.scratch = path.join(this.dir, 'scratch');
    this.init = (pod.spec.initContainers ?? []).map((c) => new ContainerRun(c, c.restartPolicy === 'Always' ? 'sidecar' : 'init'));
    this.apps = pod.spec.containers.map((c) => new ContainerRun(c, 'app'));
    for (const c of this.apps) c.state = { waiting: { reason: this.init.length ? 'PodInitializing' : 'ContainerCreating' } };
    for (const c of this.init) c.state = { waiting: { reason: 'PodInitializing' } };
    this.finished = new Promise((r) => (this.resolveFinished = r));
  }

  get key(): string {
    return `${this.pod.metadata.namespace ?? 'default'}/${this.pod.metadata.name}`;
  }
  get terminal(): boolean {
    return this.phase === 'Succeeded' || this.phase === 'Failed';
  }

  container(name: string): ContainerRun | undefined {
    return [...this.init, ...this.apps].find((c) => c.spec.name === name);
  }
  defaultContainer(): string | undefined {
    return this.pod.metadata.annotations?.['kubectl.kubernetes.io/default-container'] ?? this.apps[0]?.spec.name;
  }
  logPath(name: string, restart: number): string {
    return path.join(this.dir, 'logs', name, `${restart}.log`);
  }

  private changed(): void {
    this.deps.changed(this);
  }

  /** Runs the Pod to completion (or until terminated). */
  async run(): Promise<void> {
    try {
      await this.runPhases();
    } catch (e) {
      this.deps.log(`pod ${this.key}: ${(e as Error).stack ?? String(e)}`);
      if (!this.terminal) this.finish('Failed', 'AgentError', (e as Error).message);
    } finally {
      this.resolveFinished();
    }
  }

  private async runPhases(): Promise<void> {
    this.startTime = now();
    fs.mkdirSync(this.scratch, { recursive: true });
    this.changed();
    const ads = this.pod.spec.activeDeadlineSeconds;
    if (ads !== undefined) {
      this.deadlineTimer = setTimeout(() => void this.deadlineExceeded(ads), ads * 1000);
    }
    await this.prepareVolumes();
    if (this.terminating || this.terminal) return;
    for (const c of [...this.init, ...this.apps]) linkMounts(this.pod, c.spec, this.scratch);
    this.sandboxReady = true;
    for (const c of this.apps) if (!this.init.length) c.state = { waiting: { reason: 'ContainerCreating' } };
    this.changed();

    for (const c of this.init) {
      if (this.terminating) return;
      if (c.kind === 'sidecar') {
        void this.loop(c);
        while (!c.running && !c.done && !this.terminating) await sleep(50);
        continue;
      }
      const ok = await this.loop(c);
      if (!ok) {
        if (!this.terminating) this.finish('Failed', undefined, undefined);
        return;
      }
    }
    if (this.terminating) return;
    this.initialized = true;
    for (const c of this.apps) c.state = { waiting: { reason: 'ContainerCreating' } };
    this.changed();
    await Promise.all(this.apps.map((c) => this.loop(c)));
    if (this.terminating || this.terminal) return;
    // Sidecars stop after the app containers.
    await this.killAll(this.pod.spec.terminationGracePeriodSeconds ?? 30, this.init);
    const failed = this.apps.some((c) => (c.state.terminated?.exitCode ?? 0) !== 0);
    this.finish(failed ? 'Failed' : 'Succeeded', undefined, undefined);
  }

  /** Runs a container, restarting it as the restartPolicy says. Resolves true when it completed with 0. */
  private async loop(c: ContainerRun): Promise<boolean> {
    const policy = c.kind === 'sidecar' ? 'Always' : c.kind === 'init' ? (this.pod.spec.restartPolicy === 'Never' ? 'Never' : 'OnFailure') : (this.pod.spec.restartPolicy ?? 'Always');
    let backoff = this.deps.backoffInitialMs;
    for (;;) {
      const code = await this.runOnce(c);
      if (this.terminating || this.terminal) {
        c.done = true;
        return code === 0;
      }
      const restart = policy === 'Always' || (policy === 'OnFailure' && code !== 0);
      if (!restart) {
        c.done = true;
        return code === 0;
      }
      c.lastState = c.state;
      c.state = { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(backoff / 1000)}s restarting failed container=${c.spec.name} pod=${this.pod.metadata.name}` } };
      this.changed();
      const until = Date.now() + backoff;
      while (Date.now() < until && !this.terminating && !this.terminal) await sleep(100);
      if (this.terminating || this.terminal) {
        c.state = c.lastState;
        c.done = true;
        return false;
      }
      c.restartCount++;
      backoff = Math.min(backoff * 2, this.deps.backoffMaxMs);
    }
  }

  private async resolveConfig(c: ContainerRun): Promise<boolean> {
    for (;;) {
      if (this.terminating || this.terminal) return false;
      try {
        const kubeconfig = this.kubeconfigFor(c.spec);
        c.env = await containerEnv(c.spec, {
          pod: this.pod,
          nodeName: this.deps.nodeName,
          podIP: this.podIP,
          fetch: this.deps.fetch,
          base: {
            ...this.deps.baseEnv,
            ...(c.spec.image ? this.deps.entrypoints[imageRepository(c.spec.image)]?.env : undefined),
            HOSTNAME: this.pod.spec.hostname ?? this.pod.metadata.name,
            HOME: this.scratch,
            SVC_TESTBED_SCRATCH: this.scratch,
            SVC_TESTBED_NODE: this.deps.nodeName,
            ...(kubeconfig ? { KUBECONFIG: kubeconfig } : {}),
          },
        });
        return true;
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        const msg = e.message;
        if (c.state.waiting?.message !== msg) {
          c.state = { waiting: { reason: 'CreateContainerConfigError', message: msg } };
          this.deps.event(this.pod, 'Warning', 'Failed', `Error: ${msg}`);
          this.changed();
        }
        await sleep(1000);
      }
    }
  }

  private workingDir(c: Container): string {
    if (!c.workingDir) return this.scratch;
    if (path.isAbsolute(c.workingDir) && fs.existsSync(c.workingDir)) return c.workingDir;
    // A directory the image would provide: created under the Pod's scratch dir instead of on the host.
    const dir = path.join(this.scratch, 'rootfs', c.workingDir);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  private async runOnce(c: ContainerRun): Promise<number> {
    if (!(await this.resolveConfig(c))) return -1;
    const env = c.env ?? {};
    const argv = containerArgv(c.spec, this.deps.entrypoints, (a) => expand(a, env));
    // A command's program may come from a volume; an image entrypoint is the agent's own host path.
    if (argv[0] && c.spec.command?.length) argv[0] = this.mounted(c.spec, argv[0]);
    const startedAt = now();
    c.cwd = this.workingDir(c.spec);
    const logPath = this.logPath(c.spec.name, c.restartCount);
    fs.mkdirSync(path.dirname(logPath), { recursive: true });
    fs.writeFileSync(logPath, '');
    if (argv.length === 0) {
      const message = `the test bed knows no entrypoint of image ${c.spec.image ?? '(none)'} (agent config "entrypoints"): the container needs a command`;
      c.state = { terminated: { exitCode: 128, reason: 'StartError', message, startedAt, finishedAt: now() } };
      this.deps.event(this.pod, 'Warning', 'Failed', `Error: ${message}`);
      this.changed();
      return 128;
    }
    const writer = new LogWriter(logPath);
    let proc: ChildProcess;
    try {
      proc = spawn(argv[0] ?? '', argv.slice(1), { cwd: c.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      return this.startFailed(c, startedAt, (e as Error).message);
    }
    const spawned = await new Promise<Error | undefined>((resolve) => {
      proc.once('spawn', () => resolve(undefined));
      proc.once('error', (e) => resolve(e));
    });
    if (spawned) {
      proc.stdout?.destroy();
      proc.stderr?.destroy();
      return this.startFailed(c, startedAt, `exec: "${argv[0]}": ${spawned.message}`);
    }
    if (proc.pid) this.deps.track(proc.pid);
    if (proc.stdout) writer.attach(proc.stdout, 'stdout');
    if (proc.stderr) writer.attach(proc.stderr, 'stderr');
    c.proc = proc;
    c.everStarted = true;
    c.state = { running: { startedAt } };
    this.deps.event(this.pod, 'Normal', 'Started', `Started container ${c.spec.name}`);
    this.changed();
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      proc.once('exit', (code, signal) => resolve({ code, signal }));
    });
    // Like a container's PID namespace going away: whatever the main process left behind dies with it.
    if (proc.pid) {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    const exitCode = code ?? 128 + (signal ? (SIGNALS[signal] ?? 0) : 0);
    c.state = {
      terminated: {
        exitCode,
        ...(signal ? { signal: SIGNALS[signal] ?? 0 } : {}),
        reason: exitCode === 0 ? 'Completed' : 'Error',
        startedAt,
        finishedAt: now(),
        containerID: `svc-testbed://${c.spec.name}-${c.restartCount}`,
      },
    };
    c.exited();
    this.changed();
    return exitCode;
  }

  private startFailed(c: ContainerRun, startedAt: string, message: string): number {
    c.state = { terminated: { exitCode: 128, reason: 'StartError', message, startedAt, finishedAt: now() } };
    this.deps.event(this.pod, 'Warning', 'Failed', `Error: ${message}`);
    this.changed();
    return 128;
  }

  /**
   * A program path under one of the container's volume mounts runs from the volume's directory (there is
   * no mount namespace): how a step runs a binary an image volume provides.
   */
  private mounted(c: Container, file: string): string {
    for (const m of c.volumeMounts ?? []) {
      const at = m.mountPath.replace(/\/+$/, '');
      if (at && file.startsWith(`${at}/`)) return path.join(this.scratch, m.name, m.subPath ?? '', file.slice(at.length + 1));
    }
    return file;
  }

  /** The volumes, each set up once (volumes.ts); one that cannot be yet is retried every 2 s (FailedMount). */
  private async prepareVolumes(): Promise<void> {
    for (const v of this.pod.spec.volumes ?? []) {
      if (!(await this.prepareVolume(v))) return;
      const kubeconfig = writeTokenKubeconfig(this.pod, v, this.scratch, this.deps.tokenServer);
      if (kubeconfig) this.kubeconfigs.set(v.name, kubeconfig);
    }
  }

  private async prepareVolume(v: Volume): Promise<boolean> {
    const warn = (msg: string): void => this.deps.event(this.pod, 'Warning', 'FailedMount', `MountVolume.SetUp failed for volume "${v.name}" : ${msg}`);
    for (;;) {
      if (this.terminating || this.terminal) return false;
      const failure = await setUpVolume(this.pod, v, path.join(this.scratch, v.name), { ...this.deps, podIP: this.podIP, warn });
      if (!failure) return true;
      warn(failure);
      await sleep(2000);
    }
  }

  /** The kubeconfig of the first service-account token volume the container mounts. */
  private kubeconfigFor(c: Container): string | undefined {
    return (c.volumeMounts ?? []).map((m) => this.kubeconfigs.get(m.name)).find(Boolean);
  }

  private get podIP(): string {
    return this.pod.spec.hostNetwork ? '127.0.0.1' : this.deps.podIP;
  }

  private async deadlineExceeded(seconds: number): Promise<void> {
    if (this.terminal || this.terminating) return;
    const message = `Pod was active on the node longer than the specified deadline`;
    this.deps.event(this.pod, 'Normal', 'DeadlineExceeded', `${message} (${seconds}s)`);
    this.finish('Failed', 'DeadlineExceeded', message);
    await this.killAll(this.pod.spec.terminationGracePeriodSeconds ?? 30);
    this.changed();
  }

  private finish(phase: 'Succeeded' | 'Failed', reason: string | undefined, message: string | undefined): void {
    if (this.terminal) return;
    this.phase = phase;
    this.reason = reason;
    this.message = message;
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.changed();
  }

  /** SIGTERM to every running container's process group, SIGKILL after `graceSeconds`. */
  private async killAll(graceSeconds: number, which = [...this.apps, ...this.init]): Promise<void> {
    const running = which.filter((c) => c.proc?.pid !== undefined);
    const signal = (c: ContainerRun, sig: NodeJS.Signals): void => {
      try {
        if (c.proc?.pid) process.kill(-c.proc.pid, sig);
      } catch {
        /* gone */
      }
    };
    for (const c of running) signal(c, 'SIGTERM');
    const all = Promise.all(running.map((c) => c.waitExit()));
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), Math.max(0, graceSeconds) * 1000));
    if ((await Promise.race([all, timeout])) === 'timeout') {
      for (const c of running) signal(c, 'SIGKILL');
      await all;
    }
  }

  /** Stops the Pod for deletion: no more restarts, SIGTERM, grace period, SIGKILL. */
  async terminate(graceSeconds: number): Promise<void> {
    if (!this.terminating) {
      this.terminating = true;
      if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
      if ([...this.apps, ...this.init].some((c) => c.proc)) {
        this.deps.event(this.pod, 'Normal', 'Killing', `Stopping containers (grace period ${graceSeconds}s)`);
      }
      await this.killAll(graceSeconds);
    }
    await this.finished;
  }

  /** Environment and directory to exec in a running container, or an error message. */
  execTarget(name: string): { env: Record<string, string>; cwd: string } | string {
    const c = this.container(name);
    if (!c) return `container ${name} is not valid for pod ${this.pod.metadata.name}`;
    if (!c.running || !c.env || !c.cwd) return `container ${name} is not running`;
    return { env: c.env, cwd: c.cwd };
  }

  private condition(type: string, ok: boolean, reason?: string): PodCondition {
    const status = ok ? 'True' : 'False';
    const prev = this.conditionTimes.get(type);
    if (!prev || prev.status !== status) this.conditionTimes.set(type, { status, time: now() });
    return {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime: this.conditionTimes.get(type)?.time ?? now(),
      ...(!ok && reason ? { reason } : {}),
    };
  }

  status(): PodStatus {
    const appsReady = this.apps.every((c) => c.running) && [...this.init].filter((c) => c.kind === 'sidecar').every((c) => c.running);
    let phase = this.phase;
    if (!this.terminal) phase = this.initialized && this.apps.some((c) => c.everStarted) ? 'Running' : 'Pending';
    const initDone = this.initialized || (this.terminal && this.init.every((c) => c.kind === 'sidecar' || c.state.terminated?.exitCode === 0));
    const ready = appsReady && !this.terminal;
    const notReady = this.terminal ? 'PodCompleted' : 'ContainersNotReady';
    return {
      phase,
      reason: this.reason ?? (null as unknown as undefined),
      message: this.message ?? (null as unknown as undefined),
      conditions: [
        this.condition('PodReadyToStartContainers', this.sandboxReady && !this.terminal),
        this.condition('Initialized', initDone, 'ContainersNotInitialized'),
        this.condition('Ready', ready, notReady),
        this.condition('ContainersReady', ready, notReady),
        this.condition('PodScheduled', true),
      ],
      hostIP: '127.0.0.1',
      hostIPs: [{ ip: '127.0.0.1' }],
      podIP: this.podIP,
      podIPs: [{ ip: this.podIP }],
      ...(this.startTime ? { startTime: this.startTime } : {}),
      initContainerStatuses: this.init.map((c) => c.status()),
      containerStatuses: this.apps.map((c) => c.status()),
    };
  }
}
