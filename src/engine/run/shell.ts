/** Which shell runs a step (SPEC 2.2/2.3 shell): step value verbatim, else DAG value or default with errexit. */
import type { DagDefinition, StepDefinition } from '../../core/spec/types.js';
import { isShLike } from '../../core/shell.js';


function withErrexit(argv: string[]): string[] {
  const [bin] = argv;
  if (!bin || !isShLike(bin) || argv.includes('-e') || argv.some((a) => /^-[a-z]*e[a-z]*$/.test(a))) return argv;
  return [...argv, '-e'];
}

export function shellFor(step: StepDefinition | undefined, def: DagDefinition, fallback: string[]): { argv: string[]; explicit: boolean } {
  if (step?.shell && step.shell.length > 0) return { argv: step.shell[0] === 'direct' ? [] : step.shell, explicit: true };
  if (def.shell && def.shell.length > 0) return { argv: withErrexit(def.shell), explicit: true };
  return { argv: withErrexit(fallback), explicit: false };
}
