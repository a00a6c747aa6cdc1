/**
 * `svc run-step`: how a step of a type that runs in svc's own code (http, jq, ssh, ...) runs in a Pod on
 * Kubernetes. The step Pod runs the svc image with the entry binary as PID 1 (logs, signals, result, as
 * for shell steps); the entry runs `svc run-step`, which reads this request from its environment, runs
 * the type's runner and leaves its error message where the entry reads it into the result.
 */
import type { ExecRequest } from './ports/executor.js';
import type { StepDefinition, StepType } from './spec/types.js';

/** The step types whose executor is svc code (runtime/steps), not a command of the user's image. */
export const RUN_STEP_TYPES: readonly StepType[] = ['http', 'jq', 'ssh', 's3', 'archive', 'mail', 'redis', 'postgres', 'sqlite', 'chat'];

export const isRunStepType = (t: StepType): boolean => RUN_STEP_TYPES.includes(t);

/** The env var holding the request (JSON); it holds expanded config, so a Secret carries it when a secret is in it. */
export const STEP_REQUEST_ENV = 'SVC_STEP_REQUEST';
/**
 * The env var (from the execution's Secret) holding the run's secret values (encodeMasks): the entry masks
 * them in the logs, and `svc run-step` reads them too, for a runner that must mask what it sends (chat).
 */
export const STEP_MASK_ENV = 'SVC_MASK';
/** The mask list as STEP_MASK_ENV holds it: a JSON array of strings (a value may hold a newline). */
export const encodeMasks = (values: readonly string[]): string => JSON.stringify(values.filter((v) => v !== ''));

/** The values of a mask list (encodeMasks); none when it is unset or not one. */
export function decodeMasks(text: string | undefined): string[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
  } catch {
    return [];
  }
}

/** The env var the entry sets to the file where a failing `svc run-step` leaves its error message. */
export const STEP_ERROR_ENV = 'SVC_STEP_ERROR_FILE';

export interface RunStepRequest {
  step: StepDefinition;
  commands: string[];
  script?: string;
  config: Record<string, unknown>;
}

export function runStepRequest(req: ExecRequest): RunStepRequest {
  return { step: req.step, commands: req.commands, ...(req.script !== undefined ? { script: req.script } : {}), config: req.config };
}

/** The request, or why the text is not one. */
export function parseRunStepRequest(text: string | undefined): RunStepRequest | string {
  if (!text) return `${STEP_REQUEST_ENV} is not set: svc run-step runs inside a step Pod the operator creates`;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return `${STEP_REQUEST_ENV} is not JSON: ${(e as Error).message}`;
  }
  const r = v as Partial<RunStepRequest>;
  const ok = typeof r === 'object' && r !== null && typeof r.step?.type === 'string' && Array.isArray(r.commands)
    && typeof r.config === 'object' && r.config !== null && (r.script === undefined || typeof r.script === 'string');
  if (!ok) return `${STEP_REQUEST_ENV} is not a step request (step, commands, config)`;
  if (!isRunStepType(r.step!.type)) return `svc run-step does not run ${r.step!.type} steps (only ${RUN_STEP_TYPES.join(', ')})`;
  return r as RunStepRequest;
}
