/**
 * Human approval of `hitl` steps (SPEC 2.6, 3.3; the paths are our design, docs/api.md):
 * POST /dag-runs/{name}/{dagRunId}/steps/{stepName}/approve {inputs: {NAME: value}} and .../reject {reason}.
 */
import { Router } from 'express';
import { BadRequestError } from '../../core/errors.js';
import { isValidVarName } from '../../core/spec/names.js';
import { body } from '../input.js';
import type { RunsRouterDeps } from './deps.js';
import { optString, runKeyParams, stepNameParam } from './input.js';

const MAX_INPUTS = 100;
const MAX_INPUT_LENGTH = 65_536;
const MAX_REASON_LENGTH = 4096;

function inputsOf(b: Record<string, unknown>): Record<string, string> {
  const v = b.inputs;
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new BadRequestError('inputs must be an object of NAME: value strings');
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_INPUTS) throw new BadRequestError(`at most ${MAX_INPUTS} inputs`);
  for (const [k, x] of entries) {
    if (!isValidVarName(k)) throw new BadRequestError(`invalid input name ${JSON.stringify(k.slice(0, 80))}`);
    if (typeof x !== 'string') throw new BadRequestError(`input ${k} must be a string`);
    if (x.length > MAX_INPUT_LENGTH) throw new BadRequestError(`input ${k} is longer than ${MAX_INPUT_LENGTH} characters`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

export function approvalRouter(deps: RunsRouterDeps): Router {
  const r = Router();

  r.post('/dag-runs/:name/:dagRunId/steps/:stepName/approve', async (req, res) => {
    const key = runKeyParams(req);
    const stepName = stepNameParam(req);
    const inputs = inputsOf(body(req));
    res.json(await deps.control.decideApproval(key, stepName, { type: 'approve', node: stepName, inputs }));
  });

  r.post('/dag-runs/:name/:dagRunId/steps/:stepName/reject', async (req, res) => {
    const key = runKeyParams(req);
    const stepName = stepNameParam(req);
    const reason = optString(body(req), 'reason', MAX_REASON_LENGTH);
    res.json(await deps.control.decideApproval(key, stepName, { type: 'reject', node: stepName, ...(reason ? { reason } : {}) }));
  });

  return r;
}
