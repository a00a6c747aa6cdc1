/**
 * The launcher of `container` steps on the embedded backend (SPEC 2.5), through the Docker Engine API
 * (Docker, or Podman's compatible service; ADR 0017). Each command of a step is exec'd into a container,
 * never passed to its entrypoint: the run's container (a DAG-level image), the step's own (a step-level
 * image, removed once the step ended unless keepContainer), or a running one of the user's (exec mode).
 * Logs are written as the process launcher writes them (stdout and stderr apart, secrets masked); the
 * starts are recorded (records.ts) so a restarted engine adopts what began instead of running it again.
 */
import type Docker from 'dockerode';
import type { ExecRequest, Launcher, RunningExec } from '../../../core/ports/executor.js';
import { execName, labelValue, SVC_LABELS } from '../../../core/naming.js';
import type { ExecResult } from '../../../core/run/state.js';
import type { RegistryAuths } from './auth.js';
import { containerArgvs, execEnv, execWorkingDir, hasStepCommands } from './commands.js';
import { ensureStarted, removeContainer, type EnsureContext } from './containers.js';
import type { ContainerEngine } from './engine.js';
import { runExec } from './exec.js';
import { Live, toResult } from './live.js';
import { ExecOutputs, type OutputFiles } from './outputs.js';
import { execModeContainer, runIdentity, startMode, targetOf, type Target } from './placement.js';
import { LABELS } from './container-spec.js';
import { ContainerRecords } from './records.js';
import { singleFileTar } from './tar.js';
import { followTask } from './task.js';
import { adoptExecution } from './adopt.js';
import { whyExecFailed } from './readiness.js';
import { sweepContainers, type AttemptOver } from './sweep.js';

/** Where an execution's logs and records are on this machine (the local log store's layout). */
export type DockerLayout = (req: ExecRequest) => { stdout: string; stderr: string; recordFile: string; recordKey: string };

export interface DockerLauncherOptions {
  engine: ContainerEngine;
  layout: DockerLayout;
  /** svc's own environment: DOCKER_AUTH_CONFIG, and the host values not to pass into containers. */
  systemEnv: Record<string, string | undefined>;
  /** The readiness limit of waitFor / logPattern (default 120 s). */
  readyLimitMs?: number;
  /** Which svc this is (an id of its data directory): labels its containers. */
  owner: string;
  /** Whether a run attempt is over: its containers left behind by a crash are then removed (sweep.ts). */
  attemptOver?: AttemptOver;
  /** What the sweep removed, or why it failed. */
  onSweep?(removed: string[], error?: Error): void;
}

/** Where the commands of an execution run, and how. */
interface Place {
  container: Docker.Container;
  name: string;
  user?: string | undefined;
  workingDir?: string | undefined;
  blockEnv: string[];
}

export class DockerLauncher implements Launcher {
  readonly recordsStarts = true;
  /** Run containers being started or running, by identity: the steps of a run share one start. */
  private readonly runContainers = new Map<string, Promise<Docker.Container>>();
  /** Executions running in this process, by record key: a second ensure gets the same handle. */
  private readonly live = new Map<string, RunningExec>();

  private swept = false;

  constructor(private readonly opts: DockerLauncherOptions) {}

  /** Once per launcher, when a step first needs the engine: what a crashed svc left behind goes. */
  private sweepOnce(docker: Docker): void {
    const over = this.opts.attemptOver;
    if (this.swept || !over) return;
    this.swept = true;
    sweepContainers(docker, this.opts.owner, over).then((removed) => this.opts.onSweep?.(removed), (e: Error) => this.opts.onSweep?.([], e));
  }

  begun(req: ExecRequest): boolean {
    return this.records(req).begun();
  }

  async ensure(req: ExecRequest, o: { fresh: boolean }): Promise<RunningExec | undefined> {
    const key = this.key(req);
    const running = this.live.get(key);
    if (running) return running;
    if (!o.fresh && this.begun(req)) return adoptExecution(req, { launcher: this, engine: this.opts.engine, records: this.records(req), files: this.files(req) });
    const live = new Live();
    const result = this.execute(req, live).catch((e: unknown): ExecResult => ({ exitCode: 1, error: e instanceof Error ? e.message : String(e) }));
    const handle: RunningExec = { result, signal: (sig) => live.signal(sig) };
    this.live.set(key, handle);
    void result.then(() => this.live.delete(key));
    return handle;
  }

  /**
   * A finished run attempt's container goes, unless its DAG keeps it (`keepContainer`). Found by its
   * labels, not by its name: the block's `name` may read variables the run had.
   */
  async endRun(run: { dagName: string; dagRunId: string; attemptId: string }): Promise<void> {
    const identity = runIdentity(run);
    const id = JSON.stringify(identity);
    this.runContainers.delete(id);
    const docker = await this.opts.engine.get();
    const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.owner}=${this.opts.owner}`, `${LABELS.role}=run`, `${SVC_LABELS.dagRun}=${labelValue(run.dagRunId)}`] } });
    for (const c of list) {
      if (c.Labels[LABELS.identity] !== id || c.Labels[LABELS.keep] === 'true') continue;
      await removeContainer(docker, c.Id, identity);
    }
  }

  private key(req: ExecRequest): string {
    return `${execName(req.identity)}/${this.opts.layout(req).recordKey}`;
  }

  private records(req: ExecRequest): ContainerRecords {
    const l = this.opts.layout(req);
    return ContainerRecords.at(l.recordFile, l.recordKey);
  }

  private files(req: ExecRequest): OutputFiles {
    const l = this.opts.layout(req);
    return { stdout: l.stdout, stderr: l.stderr, stdoutCopy: req.copies.stdout, stderrCopy: req.copies.stderr };
  }

  private async execute(req: ExecRequest, live: Live): Promise<ExecResult> {
    const outputs = new ExecOutputs(this.files(req), { secrets: req.secrets, capture: req.capture, maxOutputSize: req.maxOutputSize, unlogged: !!req.unlogged });
    live.deadline(req.timeoutMs);
    let code = 1;
    let target: Target | undefined;
    try {
      target = targetOf(req);
      code = await this.runIn(req, target, outputs, live);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      outputs.note(message);
      live.done();
      await outputs.finish();
      await this.cleanUp(target);
      return { exitCode: 1, error: message };
    }
    live.done();
    const captured = await outputs.finish();
    await this.cleanUp(target);
    return toResult(code, live, req, captured);
  }

  private async runIn(req: ExecRequest, target: Target, outputs: ExecOutputs, live: Live): Promise<number> {
    const docker = await this.opts.engine.get();
    this.sweepOnce(docker);
    const records = this.records(req);
    const ctx = this.ensureContext(req, docker, outputs);
    if (target.kind !== 'exec' && startMode(target, hasStepCommands(req)) === 'task') {
      records.started(target.name, 0);
      const container = await ensureStarted(ctx, { name: target.name, config: target.config, identity: target.identity, role: 'step', owner: this.opts.owner, hostDir: req.workingDir, mode: 'task' });
      const task = followTask(container, outputs, (t) => outputs.note(t));
      live.running(task.signal);
      const code = await task.done;
      records.ended(code);
      return code;
    }
    const place = await this.place(req, target, ctx);
    return this.runCommands(req, place, { outputs, live, records });
  }

  private ensureContext(req: ExecRequest, docker: Docker, outputs: ExecOutputs): EnsureContext {
    return {
      docker, registryAuths: req.config.registryAuths as RegistryAuths | undefined, authConfig: this.opts.systemEnv.DOCKER_AUTH_CONFIG,
      readyLimitMs: this.opts.readyLimitMs, note: (t) => outputs.note(t),
    };
  }

  private async place(req: ExecRequest, t: Target, ctx: EnsureContext): Promise<Place> {
    const exec = { user: t.config.user, workingDir: execWorkingDir(req, t.config) };
    if (t.kind === 'exec') return { container: await execModeContainer(ctx.docker, t.name), name: t.name, ...exec, blockEnv: t.config.env };
    const spec = { name: t.name, config: t.config, identity: t.identity, owner: this.opts.owner, hostDir: req.workingDir, mode: t.config.startup };
    if (t.kind === 'step') return { container: await ensureStarted(ctx, { ...spec, role: 'step' }), name: t.name, ...exec, blockEnv: [] };
    const id = JSON.stringify(t.identity);
    let started = this.runContainers.get(id);
    if (!started) {
      started = ensureStarted(ctx, { ...spec, role: 'run' });
      this.runContainers.set(id, started);
      started.catch(() => this.runContainers.delete(id));
    }
    return { container: await started, name: t.name, ...exec, blockEnv: [] };
  }

  /** Runs the step's commands (from `from` on) one after another, stopping at the first failure. */
  async runCommands(req: ExecRequest, place: Place, run: { outputs: ExecOutputs; live: Live; records: ContainerRecords }, from = 0): Promise<number> {
    const { outputs, live, records } = run;
    const target = targetOf(req);
    const scriptPath = req.script !== undefined ? await putScript(req, place.container) : undefined;
    const argvs = hasStepCommands(req) ? containerArgvs(req, target.config, scriptPath) : [target.config.command];
    const env = execEnv(req, this.opts.systemEnv, place.blockEnv);
    let code = 0;
    for (let i = from; i < argvs.length && !live.stopped; i++) {
      records.started(place.name, i);
      const cmd = runExec(place.container, { argv: argvs[i]!, env, user: place.user, workingDir: place.workingDir }, outputs, {
        created: (id) => records.execCreated(id), warn: (t) => outputs.note(t), ownContainer: target.kind === 'step',
      });
      live.running(cmd.signal);
      code = await cmd.done.catch(async (e: unknown) => { throw await whyExecFailed(place.container, e); });
      live.idle();
      records.ended(code);
      if (code !== 0) break;
    }
    return code;
  }

  /** A step's own container goes once the step ended, unless its block keeps it. */
  async cleanUp(target: Target | undefined): Promise<void> {
    if (target?.kind !== 'step' || target.config.keepContainer) return;
    try {
      await removeContainer(await this.opts.engine.get(), target.name, target.identity);
    } catch { /* no engine, or it is gone: nothing to remove */ }
  }

  /** The place of an execution being adopted: the container it ran in (exec mode's as the user named it). */
  async placeForAdoption(req: ExecRequest, name: string): Promise<Place> {
    const t = targetOf(req);
    const docker = await this.opts.engine.get();
    return { container: docker.getContainer(name), name, user: t.config.user, workingDir: execWorkingDir(req, t.config), blockEnv: t.kind === 'exec' ? t.config.env : [] };
  }
}

/** The step's script, put into the container as a file (its image may have no shell to write it with). */
async function putScript(req: ExecRequest, container: Docker.Container): Promise<string> {
  const rel = `tmp/svc-scripts/${execName(req.identity)}`;
  await container.putArchive(singleFileTar(rel, Buffer.from(req.script ?? '', 'utf8')), { path: '/' });
  return `/${rel}`;
}
