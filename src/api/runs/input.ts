/** Request checks of the run routes: every bad input is a 400 bad_request naming the field. */
import type { Request } from 'express';
import { BadRequestError } from '../../core/errors.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { isSafeDagName, isValidRunId } from '../../core/resources.js';
import { dagNameProblem } from '../../core/spec/names.js';
import { dagRunIdParam } from '../dags/input.js';
import { show } from '../input.js';

/** Start parameters travel into the step environment: Linux caps one variable near 128 KiB. */
export const MAX_PARAMS_LENGTH = 100_000;
/** Step names are at most 40 characters; generous room for handler names and older runs. */
const MAX_STEP_NAME = 100;


export function checkDagName(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new BadRequestError(`${field} must be a string`);
  const problem = dagNameProblem(v) ?? (isSafeDagName(v) ? undefined : 'is not a usable name');
  if (problem) throw new BadRequestError(`invalid ${field} ${show(v)}: ${problem}`);
  return v;
}

/** The run of a path /dag-runs/:name/:dagRunId (`latest` allowed). */
export function runKeyParams(req: Request): RunKey {
  return { dagName: checkDagName(req.params.name, 'DAG name'), dagRunId: dagRunIdParam(req) };
}

export function stepNameParam(req: Request): string {
  return checkStepName(req.params.stepName);
}

export function checkStepName(v: unknown): string {
  // eslint-disable-next-line no-control-regex
  if (typeof v !== 'string' || v === '' || v.length > MAX_STEP_NAME || /[\u0000-\u001f\u007f/\\]/.test(v)) {
    throw new BadRequestError(`invalid stepName ${show(v)}: 1-${MAX_STEP_NAME} characters, no control characters or slashes`);
  }
  return v;
}

export function optString(b: Record<string, unknown>, field: string, max: number): string | undefined {
  const v = b[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new BadRequestError(`${field} must be a string`);
  if (v.length > max) throw new BadRequestError(`${field} is longer than ${max} characters`);
  return v;
}

export function optBool(b: Record<string, unknown>, field: string): boolean | undefined {
  const v = b[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new BadRequestError(`${field} must be a boolean`);
  return v;
}

/** An optional run id (an empty string counts as absent: the id is then generated). */
export function optRunId(b: Record<string, unknown>, field = 'dagRunId'): string | undefined {
  const v = b[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new BadRequestError(`${field} must be a string`);
  if (!isValidRunId(v)) throw new BadRequestError(`invalid ${field} ${show(v)}: letters, digits, "_", "." and "-" (at most 64), not starting with "." or "-"`);
  if (v === 'latest') throw new BadRequestError(`${field} "latest" is reserved`);
  return v;
}

export function intIn(b: Record<string, unknown>, field: string, min: number, max: number, required: boolean): number | undefined {
  const v = b[field];
  if (v === undefined || v === null) {
    if (required) throw new BadRequestError(`${field} is required (an integer from ${min} to ${max})`);
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new BadRequestError(`${field} must be an integer from ${min} to ${max}, got ${show(JSON.stringify(v))}`);
  }
  return v;
}
