/** handlerOn (SPEC 2.2, 6): each handler is a step definition named onInit, onSuccess, ... by default. */
import type { HandlerKind, StepDefinition } from './types.js';
import { HANDLER_KINDS, HANDLER_STEP_NAMES } from './types.js';
import type { Problems } from './errors.js';
import { at } from './errors.js';
import type { DagDefaults } from './step-kind.js';
import { parseStep, stepObject } from './step.js';
import { isObj, str } from './values.js';

/** The written key of a handler: `cancel` is the deprecated spelling of `abort`. */
function writtenKey(raw: Record<string, unknown>, kind: HandlerKind): string {
  return kind === 'abort' && raw.abort === undefined && raw.cancel !== undefined ? 'cancel' : kind;
}

export function parseHandlers(raw: unknown, dag: DagDefaults, problems: Problems): Partial<Record<HandlerKind, StepDefinition>> {
  const out: Partial<Record<HandlerKind, StepDefinition>> = {};
  if (!isObj(raw)) return out;
  if (raw.abort !== undefined && raw.cancel !== undefined) {
    problems.add('handlerOn.cancel', 'deprecated alias of abort: use only abort');
  }
  for (const kind of HANDLER_KINDS) {
    const key = writtenKey(raw, kind);
    const step = stepObject(raw[key]);
    if (!step) continue;
    const path = at('handlerOn', key);
    if (step.depends !== undefined) problems.add(at(path, 'depends'), 'not allowed in a handler');
    const def = parseStep(step, str(step.name) ?? HANDLER_STEP_NAMES[kind], path, dag, problems);
    def.depends = [];
    out[kind] = def;
  }
  return out;
}
