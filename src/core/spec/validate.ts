/** Schema validation of one parsed document with ajv; the messages are schema-messages.ts's. */
import type { ValidateFunction } from 'ajv';
import { unique } from './errors.js';
import { DAG_SCHEMA } from './schema.js';
import { schemaMessages } from './schema-messages.js';
import { validate as generated } from './validator.generated.js';

export { pathText } from './schema-messages.js';

/**
 * The schema compiled ahead of time (hack/gen-validator.mjs): compiling it at run time cost a few
 * hundred milliseconds per process. validator.test.ts fails when the generated file is stale.
 */
const validator = (): ValidateFunction => generated as ValidateFunction;

/** Every schema problem of a document, as `path: message` lines. */
export function schemaProblems(doc: unknown): string[] {
  const validate = validator();
  if (validate(doc)) return [];
  const definitions = DAG_SCHEMA.definitions as unknown as Record<string, Record<string, unknown>>;
  return unique(schemaMessages(validate.errors ?? [], doc, definitions).map((m) => m.message));
}

