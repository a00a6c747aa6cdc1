/** Applies decide()'s effects: executions, signals, precondition checks, item resolution, the finish. */
import type { Effect, ExecRef, ExecResult, Observation } from '../../core/run/state.js';
import { execKey, findNode, stepOf } from '../../core/run/state.js';
import { runStatusLabel } from '../../core/run/status.js';
import { handlerRunStatus } from '../../core/run/lifecycle.js';
import { outputMatches } from '../../core/run/policy.js';
import { INTERRUPTED, type Launcher, type RunningExec } from '../../core/ports/executor.js';
import type { DagRunResource } from '../../core/resources.js';
import type { NodeState } from '../../core/run/state.js';
import type { StepDefinition } from '../../core/spec/types.js';
import { parseParallelItems, itemToString } from '../../core/vars/items.js';
import { expandVars } from '../../core/vars/expand.js';
import { checkPreconditions, conditionHolds, type ConditionEnv } from './conditions.js';
import type { EngineDeps } from '../deps.js';
import { buildRequest, type BuiltRequest } from './exec-request.js';
import { finishRun, waitingStepsEnv } from './finish.js';
import type { RunContext } from './run-context.js';
import type { ProbeKind, ProbeOwner } from './probes.js';
import { execLog } from '../../core/ports/log-store.js';
import { runSubDag, type DriveSubRun, type SubDagEnv } from './subdag.js';
import { chatToolBox, toolNames } from './chat-tools.js';
import type { ToolBox } from '../../core/ports/chat-tools.js';
import { execLogOf } from './exec-logs.js';

export class EffectApplier {
  private readonly live = new Map<string, RunningExec>();
  private readonly busy = new Set<string>();
  private readonly pendingSignals = new Map<string, string>();
  private tasks = 0;

  constructor(
    private readonly deps: EngineDeps,
    private run: DagRunResource,
    private readonly ctx: RunContext,
    private readonly push: (o: Observation) => void,
    private readonly drive: DriveSubRun,
    /** The run had a driver before this one: its saved status may lag what that driver started. */
    private readonly resumed = false,
  ) {}

  setRun(run: DagRunResource): void {
    this.run = run;
  }

  liveCount(): number {
    return this.busy.size + this.tasks;
  }

  async applyAll(effects: Effect[]): Promise<void> {
    for (const e of effects) {
      switch (e.kind) {
        case 'exec': this.track(execKey(e.exec), this.execute(e.exec, false)); break;
        case 'signal': this.signal(e.exec, e.signal); break;
        case 'checkPreconditions': this.task(this.dagPreconditions()); break;
        case 'resolveItems': this.task(this.resolveItems(e.node)); break;
        case 'finished': break; // done by finish(), before the final state is handed to the writer
        case 'print': await this.print(e.exec, e.text); break;
      }
    }
  }

  /** The end of a run: outputs.json written before its final status is (a reader never sees a finished run without them). */
  async finish(run: DagRunResource): Promise<void> {
    await finishRun(this.deps, run, this.ctx);
  }

  /** Text of the engine's own into an execution's stdout log (after the state that asked for it is saved). */
  private async print(exec: ExecRef, text: string): Promise<void> {
    const node = findNode(this.run.spec.definition, this.run.status.run, exec.node);
    const step = node && stepOf(this.run.spec.definition, node);
    if (step) await this.deps.logs.append(execLogOf(this.run, step, exec, 'stdout'), text);
  }

  /**
   * Whether these effects need the state that asked for them saved first. Not for signals, checks
   * that are safe to repeat, or executions whose launcher records their start (Launcher.recordsStarts).
   */
  needsDurableState(effects: Effect[]): boolean {
    return effects.some((e) => {
      if (e.kind === 'signal' || e.kind === 'checkPreconditions' || e.kind === 'resolveItems') return false;
      if (e.kind !== 'exec') return true;
      const node = findNode(this.run.spec.definition, this.run.status.run, e.exec.node);
      const step = node && stepOf(this.run.spec.definition, node);
      return !step || !!step.call || !this.deps.launchers[step.type]?.recordsStarts;
    });
  }

  async adopt(exec: ExecRef): Promise<void> {
    this.track(execKey(exec), this.execute(exec, true));
  }

  private track(key: string, p: Promise<void>): void {
    this.busy.add(key);
    void p.catch((e: unknown) => this.logFailure(e)).finally(() => this.busy.delete(key));
  }

  /** Background work never rejects into the void (an unhandled rejection would end the process). */
  private logFailure(e: unknown): void {
    this.deps.log.error('Failed applying an effect', { dag: this.run.spec.dagName, dagRunId: this.run.spec.dagRunId, error: e instanceof Error ? e.message : String(e) });
  }

  private task(p: Promise<void>): void {
    this.tasks += 1;
    void p.catch((e: unknown) => this.logFailure(e)).finally(() => { this.tasks -= 1; });
  }

  private signal(exec: ExecRef, sig: string): void {
    const running = this.live.get(execKey(exec));
    if (running) running.signal(sig);
    else this.pendingSignals.set(execKey(exec), sig);
  }

  private async execute(exec: ExecRef, adopting: boolean): Promise<void> {
    const key = execKey(exec);
    const fields = { dag: this.run.spec.dagName, dagRunId: this.run.spec.dagRunId, step: exec.node, execution: exec.attempt, ...(exec.item !== undefined ? { item: exec.item } : {}) };
    this.deps.log.debug?.('Requested execution', { ...fields, adopting });
    let result: ExecResult;
    try {
      result = await this.runExec(exec, adopting);
    } catch (e) {
      result = { exitCode: 1, error: e instanceof Error ? e.message : String(e) };
    } finally {
      this.live.delete(key);
      this.pendingSignals.delete(key);
    }
    this.deps.log.debug?.('Finished execution', { ...fields, exitCode: result.exitCode, ...(result.error ? { error: result.error } : {}) });
    this.push({ type: 'execFinished', exec, result });
  }

  private async runExec(exec: ExecRef, adopting: boolean): Promise<ExecResult> {
    const node = findNode(this.run.spec.definition, this.run.status.run, exec.node);
    const step = node && stepOf(this.run.spec.definition, node);
    if (!node || !step) throw new Error(`unknown step ${exec.node}`);
    const extra = node.handler === 'wait' ? [waitingStepsEnv(this.run)] : node.handler ? [{ name: 'DAG_RUN_STATUS', value: runStatusLabel(handlerRunStatus(this.run.status.run)) }] : [];
    const built = await buildRequest({ deps: this.deps, run: this.run, ctx: this.ctx }, { node, step, exec }, extra);
    const launcher = step.call ? undefined : this.launcherFor(step);
    // Launchers that record their starts know whether this one began (after a crash the saved status may
    // lag either way); for the others, an execution being adopted is one that began. A run this driver
    // started itself has no earlier starts to find (fresh).
    const fresh = !adopting && !this.resumed;
    const began = launcher?.recordsStarts && !fresh ? await launcher.begun(built.req) : adopting;
    if (!began && step.preconditions.length > 0) {
      const pre = await checkPreconditions(step.preconditions, this.condEnv(built, { step, exec }, 'pre'));
      if (!pre.met) return { exitCode: 0, skipped: true, error: pre.error ?? 'preconditions not met' };
    }
    const env = { deps: this.deps, parent: this.run, ctx: this.ctx, push: this.push, drive: this.drive, setLive: (r: RunningExec) => this.attachLive(exec, r) };
    if (step.call) return runSubDag(env, { node, step, exec, built });
    const tools = step.type === 'chat' && !began ? await this.chatTools(env, exec, built, launcher!) : undefined;
    if (tools && 'error' in tools) return { exitCode: 1, error: tools.error };
    const running = await launcher!.ensure(built.req, { fresh: !began, ...(tools ? { tools } : {}) });
    if (!running) return { exitCode: 1, error: INTERRUPTED };
    this.attachLive(exec, running);
    const result = await running.result;
    return this.postProcess(step, built, result);
  }

  /** A chat step's tools (llm.tools), when it offers any: only a launcher that runs the step here can take them. */
  private async chatTools(env: SubDagEnv, exec: ExecRef, built: BuiltRequest, launcher: Launcher): Promise<ToolBox | { error: string } | undefined> {
    const names = toolNames(built.req.config);
    if (names.length === 0) return undefined;
    if (!launcher.runsTools) return { error: 'chat step: llm.tools (tool calling) runs only where chat steps run in the engine\'s process (the embedded backend): a step Pod cannot start DAG runs' };
    return chatToolBox(env, exec, names);
  }

  /** An execution can be signalled from now on; a signal that came while it was being prepared is delivered. */
  private attachLive(exec: ExecRef, running: RunningExec): void {
    this.live.set(execKey(exec), running);
    const pending = this.pendingSignals.get(execKey(exec));
    if (pending) running.signal(pending);
  }

  private launcherFor(step: StepDefinition): Launcher {
    const launcher = this.deps.launchers[step.type];
    if (!launcher) throw new Error(`step type "${step.type}" is not supported by this backend`);
    return launcher;
  }

  /** continueOn.output scans the stdout log; repeatPolicy's condition is evaluated after each run. */
  private async postProcess(step: StepDefinition, built: BuiltRequest, result: ExecResult): Promise<ExecResult> {
    const r = { ...result };
    const stdoutLog = execLog(built.req.identity, 'stdout', built.req.merged);
    if (r.output === undefined && built.req.capture && !r.error) {
      r.output = ((await this.deps.logs.text(stdoutLog, built.req.maxOutputSize)) ?? '').trim();
    }
    if (r.exitCode !== 0 && step.continueOn.output.length > 0) {
      const stdout = (await this.deps.logs.text(stdoutLog, 16 * 1024 * 1024)) ?? '';
      r.outputMatched = outputMatches(step.continueOn.output.map((p) => expandVars(p, built.lookup)), stdout);
    }
    const rp = step.repeatPolicy;
    if (rp?.condition) {
      const env = { ...built.req.env, ...(r.output !== undefined && step.output ? { [step.output.name]: r.output } : {}) };
      const ce = { ...this.condEnv({ ...built, req: { ...built.req, env } }, { step, exec: built.req.exec }, 'repeat'), lookup: this.ctx.lookup(env) };
      r.conditionMatched = await conditionHolds(rp.condition, rp.expected, ce);
    }
    return r;
  }

  /** Conditions of a step's execution (or of the run, with no owner) run where its steps run. */
  private condEnv(built: { lookup: BuiltRequest['lookup']; req: Pick<BuiltRequest['req'], 'env' | 'workingDir' | 'shell' | 'secrets'> }, owner: ProbeOwner | undefined, kind: ProbeKind): ConditionEnv {
    const { env, workingDir, shell, secrets } = built.req;
    return {
      lookup: built.lookup,
      runCommand: this.ctx.probes.runCommand({ cwd: workingDir, env, shell, secrets, owner, unlogged: true }, 'eval'),
      test: async (command) => (await this.ctx.probes.run({ kind, command, cwd: workingDir, env, shell, secrets, owner })).exitCode,
    };
  }

  private async dagPreconditions(): Promise<void> {
    let obs: Observation;
    try {
      const env = await this.ctx.stepEnv(undefined, this.run.status.run, []);
      const built = { lookup: this.ctx.lookup(env), req: { env, workingDir: this.ctx.workingDir, shell: this.ctx.shell, secrets: this.ctx.secretValues } };
      const r = await checkPreconditions(this.run.spec.definition.preconditions, this.condEnv(built, undefined, 'pre'));
      obs = { type: 'preconditions', met: r.met, ...(r.error ? { error: r.error } : {}) };
    } catch (e) {
      obs = { type: 'preconditions', met: false, error: `precondition error: ${e instanceof Error ? e.message : String(e)}` };
    }
    this.push(obs);
  }

  /** Never rejects: a failure to resolve the items fails the step with the reason. */
  private async resolveItems(name: string): Promise<void> {
    try {
      const node = findNode(this.run.spec.definition, this.run.status.run, name) as NodeState;
      const step = stepOf(this.run.spec.definition, node)!;
      const raw = step.parallel?.items;
      let items: string[] = [];
      if (typeof raw === 'string') {
        const env = await this.ctx.stepEnv({ step, exec: { node: name, attempt: 0 } }, this.run.status.run, []);
        items = parseParallelItems(expandVars(raw, this.ctx.lookup(env), { keepUnknown: false })).map(itemToString);
      }
      this.push({ type: 'items', node: name, items });
    } catch (e) {
      this.push({ type: 'items', node: name, items: [], error: `cannot resolve parallel items: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
}
