/**
 * ajv's errors of the DAG schema as path-named messages, for the loader (validate.ts) and for the UI's
 * editor (which checks as the user types and must word a problem as the server does). Pure: the schema's
 * definitions come in. Alternatives (anyOf/oneOf) are reported once: when the value has the type of one
 * alternative only that alternative's errors are kept, otherwise one "must be a X or a Y" message.
 */
import type { ErrorObject } from 'ajv';
import { at, idx, stepLabel } from './errors.js';
import { isObj } from './values.js';

type Schema = Record<string, unknown>;

/** One error kept, with its message (duplicates of a message are left to the caller). */
export interface SchemaMessage {
  error: ErrorObject;
  message: string;
}

/** The errors worth reporting, each with its `path: message` text. */
export function schemaMessages(errors: ErrorObject[], root: unknown, definitions: Record<string, Schema>): SchemaMessage[] {
  const resolveRef = (s: Schema): Schema => (typeof s.$ref === 'string' ? definitions[s.$ref.replace('#/definitions/', '')] ?? s : s);
  const dropped = new Set<ErrorObject>();
  const replaced = new Map<ErrorObject, string>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') resolveAlternatives(e, errors, { dropped, replaced, root, resolveRef });
  }
  return errors.filter((e) => !dropped.has(e)).map((e) => ({ error: e, message: replaced.get(e) ?? describe(e, root) }));
}

interface Alternatives {
  dropped: Set<ErrorObject>;
  replaced: Map<ErrorObject, string>;
  root: unknown;
  resolveRef: (s: Schema) => Schema;
}

function resolveAlternatives(e: ErrorObject, all: ErrorObject[], a: Alternatives): void {
  const branches = (Array.isArray(e.schema) ? e.schema : []).map((b) => a.resolveRef(b as Schema));
  const type = jsonType(e.data);
  const types = (s: Schema) => schemaTypes(s, a.resolveRef);
  const matching = branches.filter((b) => typeMatches(types(b), type));
  const others = branches.filter((b) => !matching.includes(b));
  for (const o of all) {
    if (o !== e && o.instancePath === e.instancePath && others.includes(o.parentSchema as Schema)) a.dropped.add(o);
  }
  if (matching.length > 0) {
    a.dropped.add(e);
    return;
  }
  const union = [...new Set(branches.flatMap((b) => types(b) ?? []))];
  a.replaced.set(e, `${pathText(e.instancePath, a.root) || '(document)'}: must be ${typesText(union)}`);
}

/** The JSON types a schema accepts at its top level; undefined means any. */
function schemaTypes(s: Schema, resolveRef: (s: Schema) => Schema): string[] | undefined {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type as string[];
  if (s.const !== undefined) return [jsonType(s.const)];
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map(jsonType))];
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(alts)) {
    const each = alts.map((x) => schemaTypes(resolveRef(x), resolveRef));
    return each.some((t) => t === undefined) ? undefined : [...new Set(each.flatMap((t) => t ?? []))];
  }
  return undefined;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(types: string[] | undefined, type: string): boolean {
  if (!types) return true;
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean',
  object: 'a map', array: 'a list', null: 'null',
};

function typesText(types: string[]): string {
  const words = types.filter((t) => !(t === 'integer' && types.includes('number'))).map((t) => TYPE_WORDS[t] ?? t);
  return words.length <= 1 ? (words[0] ?? 'valid') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const COMPARISON: Record<string, string> = { '>': 'greater than', '>=': 'at least', '<': 'less than', '<=': 'at most' };

function describe(e: ErrorObject, root: unknown): string {
  const path = pathText(e.instancePath, root);
  const p = e.params as Record<string, unknown>;
  const line = (msg: string, where = path) => `${where || '(document)'}: ${msg}`;
  switch (e.keyword) {
    case 'required': return line('is required', at(path, String(p.missingProperty)));
    case 'additionalProperties': return line('unknown field', at(path, String(p.additionalProperty)));
    case 'type': return line(`must be ${typesText(String(p.type).split(','))}`);
    case 'enum': return line(`must be one of: ${(p.allowedValues as unknown[]).join(', ')}`);
    case 'const': return line(`must be ${JSON.stringify(p.allowedValue)}`);
    case 'minimum': case 'maximum': case 'exclusiveMinimum': case 'exclusiveMaximum':
      return line(`must be ${COMPARISON[String(p.comparison)] ?? String(p.comparison)} ${String(p.limit)}`);
    case 'minLength': return line(`must be at least ${String(p.limit)} characters long`);
    case 'maxLength': return line(`must be at most ${String(p.limit)} characters long`);
    case 'minItems': return line(`must have at least ${String(p.limit)} items`);
    case 'maxItems': return line(`must have at most ${String(p.limit)} items`);
    case 'minProperties': case 'maxProperties':
      return line(isSingleEntry(e.parentSchema) ? 'must have exactly one entry' : (e.message ?? 'is invalid'));
    case 'pattern': return line(`is not valid (${describeSchema(e.parentSchema) ?? String(p.pattern)})`);
    default: return line(e.message ?? 'is invalid');
  }
}

function isSingleEntry(s: unknown): boolean {
  return isObj(s) && s.minProperties === 1 && s.maxProperties === 1;
}

function describeSchema(s: unknown): string | undefined {
  return isObj(s) && typeof s.description === 'string' ? s.description.replace(/\.$/, '') : undefined;
}

/**
 * `/steps/1/retryPolicy/backoff` as `steps[1] (build).retryPolicy.backoff`: list indexes in brackets,
 * and list steps labelled with their name when they have one (same form as the loader's messages).
 */
export function pathText(instancePath: string, root: unknown): string {
  const segments = instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  let cur: unknown = root;
  let inSteps = segments[0] === 'steps';
  segments.forEach((seg, i) => {
    if (Array.isArray(cur)) {
      cur = cur[Number(seg)];
      out = idx(out, Number(seg));
      if (inSteps && isObj(cur)) out = stepLabel(out, cur.name);
    } else {
      cur = isObj(cur) ? cur[seg] : undefined;
      out = at(out, seg);
      if (i > 0) inSteps = false;
    }
  });
  return out;
}
