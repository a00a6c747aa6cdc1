/** `svc validate <file>` and `svc dry <file>`: checks and the plan, nothing executed. */
import type { DagDefinition } from '../core/spec/types.js';
import { callCycleErrors } from '../engine/services/call-check.js';
import { UsageError, type Args } from './args.js';
import type { CliContext } from './context.js';
import { loadDagArg } from './dag-arg.js';

async function load(ctx: CliContext, args: Args, usage: string) {
  const file = args.positional[0];
  if (!file) throw new UsageError(usage);
  const loaded = await loadDagArg(ctx, file);
  // Call cycles through the DAGs of the DAGs directory, as a start would refuse them.
  const dag = loaded.errors.length > 0 ? loaded : { ...loaded, errors: await callCycleErrors(loaded, (n) => ctx.deps.dags.find(n)) };
  if (dag.errors.length > 0) ctx.io.err(`${file} is invalid:\n${dag.errors.map((e) => `  - ${e}`).join('\n')}\n`);
  return dag;
}

/** Where the DAG has a `kubernetes` block: `DAG`, then the steps and handlers that have their own. */
function kubernetesBlocks(def: DagDefinition): string[] {
  const steps = [...def.steps, ...Object.values(def.handlerOn)].filter((s) => s.kubernetes !== undefined).map((s) => s.name);
  return [...(def.kubernetes ? ['DAG'] : []), ...(steps.length ? [`step${steps.length > 1 ? 's' : ''} ${steps.join(', ')}`] : [])];
}

/** The embedded engine runs steps as local processes: a `kubernetes` block means nothing there, and it says so. */
function kubernetesNote(ctx: CliContext, def: DagDefinition): void {
  const where = kubernetesBlocks(def);
  if (where.length > 0) ctx.io.out(`note: kubernetes (${where.join('; ')}): applies on the kubernetes backend only (the embedded engine ignores it)\n`);
}

export async function validateCommand(ctx: CliContext, args: Args): Promise<number> {
  const dag = await load(ctx, args, 'usage: svc validate <file>');
  if (dag.errors.length > 0) return 1;
  ctx.io.out(`${args.positional[0]}: valid (DAG ${dag.definition.name}, ${dag.definition.steps.length} steps)\n`);
  kubernetesNote(ctx, dag.definition);
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

export async function dryCommand(ctx: CliContext, args: Args): Promise<number> {
  const dag = await load(ctx, args, 'usage: svc dry <file>');
  if (dag.errors.length > 0) return 1;
  const def = dag.definition;
  ctx.io.out(`DAG ${def.name}: ${def.steps.length} steps, maxActiveSteps ${def.maxActiveSteps}, nothing executed\n`);
  const byName = new Map(def.steps.map((s) => [s.name, s]));
  planWaves(def).forEach((wave, i) => {
    for (const name of wave) {
      const s = byName.get(name)!;
      const what = s.call ? `call ${s.call}` : s.script !== undefined ? 'script' : s.commands.join(' && ');
      ctx.io.out(`  ${String(i + 1).padStart(3)}. ${name}${s.depends.length ? ` (after ${s.depends.join(', ')})` : ''}: ${s.type} ${what}\n`);
    }
  });
  const handlers = Object.keys(def.handlerOn);
  if (handlers.length) ctx.io.out(`  handlers: ${handlers.join(', ')}\n`);
  kubernetesNote(ctx, def);
  return 0;
}
