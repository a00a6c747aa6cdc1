/**
 * The DAG JSON Schema check of one YAML document, in the browser: the loader's own validator, compiled
 * ahead of time (core/spec/validator.generated.ts: ajv standalone code, so the page needs no eval and its
 * Content-Security-Policy allows none), with the loader's own messages (core/spec/schema-messages.ts,
 * pure and shared), so a problem the server reports again on save reads the same. The schema's
 * definitions (dag-schema.generated.json, copied by hack/gen-ui-dag-schema.mjs) word the messages.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { schemaMessages } from '../../core/spec/schema-messages.js';
import { validate as generated } from '../../core/spec/validator.generated.js';
import schemaJson from './dag-schema.generated.json';

type Schema = Record<string, unknown>;

/** One schema problem: the loader's `path: message` text, and the JSON pointer of the field to mark. */
export interface SchemaProblem {
  message: string;
  pointer: string;
  /** Mark the field's name rather than its value (an unknown field). */
  onKey: boolean;
}

const definitions = (schemaJson as { definitions?: Record<string, Schema> }).definitions ?? {};

function validator(): ValidateFunction {
  return generated as ValidateFunction;
}

/** Every schema problem of a document's value, worded by the loader's own messages. */
export function schemaProblems(value: unknown): SchemaProblem[] {
  const validate = validator();
  if (validate(value)) return [];
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const { error, message } of schemaMessages(validate.errors ?? [], value, definitions)) {
    if (!seen.has(message)) out.push(problemOf(error, message));
    seen.add(message);
  }
  return out;
}

function problemOf(e: ErrorObject, message: string): SchemaProblem {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return { message, pointer: `${e.instancePath}/${escape(String(params.additionalProperty))}`, onKey: true };
  return { message, pointer: e.instancePath, onKey: e.keyword === 'required' };
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
