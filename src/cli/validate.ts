/**
 * `svc validate <file>` and `svc dry <file>`: checks and the plan, nothing executed. `--json` prints the
 * result as one JSON document on stdout (the problems in it, not on stderr); the exit codes stay.
 */
import type { DagDefinition } from '../core/spec/types.js';
import { dagDetailView } from '../api/dags/views.js';
import { callCycleErrors } from '../engine/services/call-check.js';
import { UsageError, type Args } from './args.js';
import type { CliContext } from './context.js';
import { loadDagArg } from './dag-arg.js';
import { dagPolicyProblems } from '../core/spec/pod-policy.js';

async function load(ctx: CliContext, args: Args, usage: string) {
  const file = args.positional[0];
  if (!file) throw new UsageError(usage);
  const loaded = await loadDagArg(ctx, file);
  // Call cycles through the DAGs of the DAGs directory, as a start would refuse them.
  const dag = loaded.errors.length > 0 ? loaded : { ...loaded, errors: [...await callCycleErrors(loaded, (n) => ctx.deps.dags.find(n)), ...policyProblems(ctx, loaded)] };
  if (dag.errors.length > 0 && !args.flags.json) ctx.io.err(`${file} is invalid:\n${dag.errors.map((e) => `  - ${e}`).join('\n')}\n`);
  // The definition is whole when the file itself had no problem (a call cycle is one between files).
  return { ...dag, parsed: loaded.errors.length === 0 };
}

/** What the pod policy (SVC_POD_POLICY over the default) refuses, as POST /dags/validate and the operator would. */
function policyProblems(ctx: CliContext, loaded: { definition: DagDefinition; localDags: Record<string, DagDefinition> }): string[] {
  const local = Object.values(loaded.localDags).flatMap((d) => dagPolicyProblems(d, ctx.config.podPolicy).map((p) => `local DAG ${d.name}: ${p}`));
  return [...dagPolicyProblems(loaded.definition, ctx.config.podPolicy), ...local];
}

const printJson = (ctx: CliContext, body: unknown): void => ctx.io.out(`${JSON.stringify(body, null, 2)}\n`);

/** Where the DAG has a `kubernetes` block: `DAG`, then the steps and handlers that have their own. */
function kubernetesBlocks(def: DagDefinition): string[] {
  const steps = [...def.steps, ...Object.values(def.handlerOn)].filter((s) => s.kubernetes !== undefined).map((s) => s.name);
  return [...(def.kubernetes ? ['DAG'] : []), ...(steps.length ? [`step${steps.length > 1 ? 's' : ''} ${steps.join(', ')}`] : [])];
}

/** The embedded engine runs steps as local processes: a `kubernetes` block means nothing there, and it says so. */
function kubernetesNotes(def: DagDefinition): string[] {
  const where = kubernetesBlocks(def);
  return where.length > 0 ? [`kubernetes (${where.join('; ')}): applies on the kubernetes backend only (the embedded engine ignores it)`] : [];
}

const printNotes = (ctx: CliContext, def: DagDefinition): void => kubernetesNotes(def).forEach((n) => ctx.io.out(`note: ${n}\n`));

/** `--json`: what POST /dags/validate answers (valid, errors, the DAG's detail view), and the notes. */
export async function validateCommand(ctx: CliContext, args: Args): Promise<number> {
  const dag = await load(ctx, args, 'usage: svc validate <file>');
  const valid = dag.errors.length === 0;
  if (args.flags.json) {
    printJson(ctx, { valid, errors: dag.errors, dag: dag.parsed ? dagDetailView(dag.definition) : null, notes: dag.parsed ? kubernetesNotes(dag.definition) : [] });
    return valid ? 0 : 1;
  }
  if (!valid) return 1;
  ctx.io.out(`${args.positional[0]}: valid (DAG ${dag.definition.name}, ${dag.definition.steps.length} steps)\n`);
  printNotes(ctx, dag.definition);
  return 0;
}

/**
 * Kahn's order, in waves of steps that could run together. Linear in steps plus dependencies: each step
 * keeps a count of unmet dependencies and a list of its dependants (a 20,000-step chain is 20,000 waves).
 */
export function planWaves(def: Pick<DagDefinition, 'steps'>): string[][] {
  const order = new Map(def.steps.map((s, i) => [s.name, i]));
  const unmet = new Map(def.steps.map((s) => [s.name, new Set(s.depends).size]));
  const dependants = new Map<string, string[]>();
  for (const s of def.steps) {
    for (const d of new Set(s.depends)) dependants.set(d, dependants.get(d) ?? []).get(d)!.push(s.name);
  }
  const waves: string[][] = [];
  let wave = def.steps.map((s) => s.name).filter((name) => unmet.get(name) === 0);
  while (wave.length > 0) {
    waves.push(wave);
    wave = wave.flatMap((name) => (dependants.get(name) ?? []).filter((d) => decrement(unmet, d) === 0));
    wave.sort((a, b) => order.get(a)! - order.get(b)!);
  }
  return waves;
}

/** One dependency met: the dependant's count of unmet ones, after. */
function decrement(counts: Map<string, number>, key: string): number {
  const n = (counts.get(key) ?? 0) - 1;
  counts.set(key, n);
  return n;
}

/** One step of the plan: what it runs, and after what. */
function planStep(s: DagDefinition['steps'][number]) {
  return { name: s.name, type: s.type, run: s.call ? `call ${s.call}` : s.script !== undefined ? 'script' : s.commands.join(' && '), depends: s.depends };
}

/** The plan: the waves of steps that could run together, in order, and the handlers. */
function plan(def: DagDefinition) {
  const byName = new Map(def.steps.map((s) => [s.name, s]));
  return {
    dag: def.name, steps: def.steps.length, maxActiveSteps: def.maxActiveSteps,
    waves: planWaves(def).map((wave) => wave.map((name) => planStep(byName.get(name)!))), handlers: Object.keys(def.handlerOn),
  };
}

/** `--json`: { valid, errors, plan (null when invalid), notes }. */
export async function dryCommand(ctx: CliContext, args: Args): Promise<number> {
  const dag = await load(ctx, args, 'usage: svc dry <file>');
  const valid = dag.errors.length === 0;
  if (args.flags.json) {
    printJson(ctx, { valid, errors: dag.errors, plan: valid ? plan(dag.definition) : null, notes: valid ? kubernetesNotes(dag.definition) : [] });
    return valid ? 0 : 1;
  }
  if (!valid) return 1;
  const p = plan(dag.definition);
  ctx.io.out(`DAG ${p.dag}: ${p.steps} steps, maxActiveSteps ${p.maxActiveSteps}, nothing executed\n`);
  p.waves.forEach((wave, i) => {
    for (const s of wave) ctx.io.out(`  ${String(i + 1).padStart(3)}. ${s.name}${s.depends.length ? ` (after ${s.depends.join(', ')})` : ''}: ${s.type} ${s.run}\n`);
  });
  if (p.handlers.length) ctx.io.out(`  handlers: ${p.handlers.join(', ')}\n`);
  printNotes(ctx, dag.definition);
  return 0;
}
