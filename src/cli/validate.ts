/** `svc validate <file>` and `svc dry <file>`: checks and the plan, nothing executed. */
import type { DagDefinition } from '../core/spec/types.js';
import { loadDagFile } from '../main/embedded.js';
import { UsageError, type Args } from './args.js';
import type { CliContext } from './context.js';

async function load(ctx: CliContext, args: Args, usage: string) {
  const file = args.positional[0];
  if (!file) throw new UsageError(usage);
  const dag = await loadDagFile(file);
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

/** Kahn's order, in waves of steps that could run together. */
export function planWaves(def: DagDefinition): string[][] {
  const remaining = new Map(def.steps.map((s) => [s.name, new Set(s.depends)]));
  const waves: string[][] = [];
  while (remaining.size > 0) {
    const wave = [...remaining].filter(([, deps]) => deps.size === 0).map(([n]) => n);
    if (wave.length === 0) break;
    waves.push(wave);
    for (const n of wave) remaining.delete(n);
    for (const deps of remaining.values()) for (const n of wave) deps.delete(n);
  }
  return waves;
}

export async function dryCommand(ctx: CliContext, args: Args): Promise<number> {
  const dag = await load(ctx, args, 'usage: svc dry <file>');
  if (dag.errors.length > 0) return 1;
  const def = dag.definition;
  ctx.io.out(`DAG ${def.name}: ${def.steps.length} steps, maxActiveSteps ${def.maxActiveSteps}, nothing executed\n`);
  planWaves(def).forEach((wave, i) => {
    for (const name of wave) {
      const s = def.steps.find((x) => x.name === name)!;
      const what = s.call ? `call ${s.call}` : s.script !== undefined ? 'script' : s.commands.join(' && ');
      ctx.io.out(`  ${String(i + 1).padStart(3)}. ${name}${s.depends.length ? ` (after ${s.depends.join(', ')})` : ''}: ${s.type} ${what}\n`);
    }
  });
  const handlers = Object.keys(def.handlerOn);
  if (handlers.length) ctx.io.out(`  handlers: ${handlers.join(', ')}\n`);
  kubernetesNote(ctx, def);
  return 0;
}
