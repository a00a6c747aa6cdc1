/** Builds the ExecRequest of one execution: expanded commands, environment, files. */
import type { ExecRequest } from '../../core/ports/executor.js';
import type { DagRunResource } from '../../core/resources.js';
import type { ExecRef, NodeState } from '../../core/run/state.js';
import type { EnvEntry, StepDefinition } from '../../core/spec/types.js';
import { mergeKubernetes } from '../../core/spec/kubernetes.js';
import { effectiveConfig, mapStrings } from '../../core/spec/step-config.js';
import { expandVars } from '../../core/vars/expand.js';
import type { EngineDeps } from '../deps.js';
import { resolvePath, type RunContext } from './run-context.js';
import { shellFor } from './shell.js';
import { stepRefs } from './step-refs.js';
import { chatHistory } from './chat-history.js';
import { execLog } from '../../core/ports/log-store.js';
import { execIdentity, isMerged } from './exec-logs.js';

export { execIdentity, execLogOf, isMerged } from './exec-logs.js';

export interface BuiltRequest {
  req: ExecRequest;
  lookup: (n: string) => string | undefined;
}

export interface RequestScope {
  deps: EngineDeps;
  run: DagRunResource;
  ctx: RunContext;
}

export async function buildRequest(scope: RequestScope, target: { node: NodeState; step: StepDefinition; exec: ExecRef }, extra: EnvEntry[]): Promise<BuiltRequest> {
  const { deps, run, ctx } = scope;
  const { node, step, exec } = target;
  const def = run.spec.definition;
  const identity = execIdentity(run, exec);
  const merged = isMerged(run, step);
  const item = exec.item !== undefined ? node.items?.find((i) => i.index === exec.item)?.item : undefined;
  const builtins: EnvEntry[] = [
    { name: 'DAG_RUN_STEP_NAME', value: node.name },
    { name: 'DAG_RUN_STEP_STDOUT_FILE', value: deps.logs.locate(execLog(identity, 'stdout', merged)) },
    { name: 'DAG_RUN_STEP_STDERR_FILE', value: deps.logs.locate(execLog(identity, 'stderr', merged)) },
    ...(item !== undefined ? [{ name: 'ITEM', value: item }] : []),
    ...extra,
  ];
  const env = await ctx.stepEnv({ step, exec }, run.status.run, builtins);
  const refs = stepRefs(deps, run, run.status.run);
  const base = ctx.lookup(env);
  const lookup = (n: string): string | undefined => base(n) ?? refs(n);
  const x = (s: string) => expandVars(s, lookup);
  // Shell text: variables the process has in its environment are left to the shell (correct quoting);
  // positional params $1.. are substituted (the shell has no positional arguments of ours).
  const inEnv = (n: string) => Object.prototype.hasOwnProperty.call(env, n) && !/^[0-9]+$/.test(n);
  const sh = (s: string) => expandVars(s, lookup, { leaveToShell: inEnv });
  const workingDir = resolvePath(ctx.workingDir, x(step.workingDir ?? '.'));
  const shell = shellFor(step, def, deps.defaultShell);
  const timeoutSec = step.timeoutSec ?? 0;
  const selector = { ...def.workerSelector, ...step.workerSelector };
  const kubernetes = mergeKubernetes(def.kubernetes, step.kubernetes);
  const history = step.type === 'chat' ? await chatHistory(deps, run, step, x) : [];
  const req: ExecRequest = {
    exec, step, commands: step.type === 'shell' ? step.commands.map(sh) : step.commands.map(x),
    config: step.type === 'shell' ? {} : { ...mapStrings(effectiveConfig(def, step), x) as Record<string, unknown>, ...(history.length > 0 ? { history } : {}) }, shell: shell.argv, shellExplicit: shell.explicit, env, workingDir,
    identity, merged,
    copies: {
      ...(step.stdout ? { stdout: resolvePath(ctx.workingDir, x(step.stdout)) } : {}),
      ...(step.stderr ? { stderr: resolvePath(ctx.workingDir, x(step.stderr)) } : {}),
    },
    secrets: ctx.secretValues, maxOutputSize: def.maxOutputSize, timeoutMs: timeoutSec * 1000, capture: !!step.output,
    ...(step.script !== undefined ? { script: step.type === 'shell' ? sh(step.script) : x(step.script) } : {}),
    ...(Object.keys(selector).length > 0 ? { workerSelector: selector } : {}),
    ...(kubernetes ? { kubernetes } : {}),
    ...(step.type === 'container' && !step.container && def.container ? { container: def.container } : {}),
  };
  return { req, lookup };
}

