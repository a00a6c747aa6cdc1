/** The bodies of the start endpoints (SPEC 4.4): start options, and inline specs (no stored file). */
import { BadRequestError } from '../../core/errors.js';
import type { LoadedDag } from '../../core/ports/engine-ports.js';
import { checkSpecSize } from '../../core/spec/limits.js';
import { parseDagText } from '../../core/spec/load.js';
import type { AdmitOptions } from '../../engine/services/api.js';
import { checkDagName, MAX_PARAMS_LENGTH, optBool, optRunId, optString } from './input.js';

const QUEUE_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/** params, dagRunId, dagName, singleton (and queue when `withQueue`). */
export function startOptions(b: Record<string, unknown>, withQueue = false): AdmitOptions {
  const params = optString(b, 'params', MAX_PARAMS_LENGTH);
  const dagRunId = optRunId(b);
  const dagName = b.dagName === undefined || b.dagName === null || b.dagName === '' ? undefined : checkDagName(b.dagName, 'dagName');
  const singleton = optBool(b, 'singleton');
  const queue = withQueue ? optString(b, 'queue', 64) : undefined;
  if (queue !== undefined && queue !== '' && !QUEUE_NAME.test(queue)) throw new BadRequestError(`invalid queue ${JSON.stringify(queue)}: letters, digits, "_", "." and "-" (at most 64)`);
  return {
    trigger: 'api', ...(params !== undefined ? { params } : {}), ...(dagRunId ? { dagRunId } : {}), ...(dagName ? { dagName } : {}),
    ...(singleton ? { singleton } : {}), ...(queue ? { queue } : {}),
  };
}

/** `spec` (required YAML) and `name` (used when the spec has none) of POST /dag-runs and /dag-runs/enqueue. */
export function inlineDag(b: Record<string, unknown>): LoadedDag {
  const spec = b.spec;
  if (spec === undefined || spec === null || (typeof spec === 'string' && spec.trim() === '')) throw new BadRequestError('spec is required: the DAG definition as a YAML string');
  if (typeof spec !== 'string') throw new BadRequestError('spec must be a string of YAML');
  checkSpecSize('spec', Buffer.byteLength(spec));
  const name = b.name === undefined || b.name === null || b.name === '' ? undefined : checkDagName(b.name, 'name');
  const { file, localDags, errors } = parseDagText(spec, name ?? '');
  if (file.dag && !file.dag.name) throw new BadRequestError('name is required when the spec has no name');
  if (!file.dag || errors.length > 0) throw new BadRequestError(`invalid spec: ${errors.join('; ')}`, { errors });
  return { definition: file.dag, localDags, errors: [] };
}
