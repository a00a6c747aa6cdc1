/**
 * The DAG JSON Schema check of one YAML document, in the browser: ajv (the validator the server's loader
 * uses) over dag-schema.generated.json (the loader's schema, copied by hack/gen-ui-dag-schema.mjs), with
 * messages worded as the loader words them (core/spec/validate.ts), so a problem the server reports again
 * on save reads the same. Alternatives (anyOf) are reported once: the branch of the value's type, else
 * one "must be a X or a Y".
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import schemaJson from './dag-schema.generated.json';

type Schema = Record<string, unknown>;

/** One schema problem: the loader's `path: message` text, and the JSON pointer of the field to mark. */
export interface SchemaProblem {
  message: string;
  pointer: string;
  /** Mark the field's name rather than its value (an unknown field). */
  onKey: boolean;
}

let compiled: ValidateFunction | undefined;
const definitions = (schemaJson as { definitions?: Record<string, Schema> }).definitions ?? {};

/** Compiled once, at the first check (tens of milliseconds). */
function validator(): ValidateFunction {
  compiled ??= new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true }).compile(schemaJson);
  return compiled;
}

/** Every schema problem of a document's value. */
export function schemaProblems(value: unknown): SchemaProblem[] {
  const validate = validator();
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  const dropped = new Set<ErrorObject>();
  const replaced = new Map<ErrorObject, string>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') resolveAlternatives(e, errors, dropped, replaced, value);
  }
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const e of errors) {
    if (dropped.has(e)) continue;
    const p = problemOf(e, value, replaced.get(e));
    if (!seen.has(p.message)) out.push(p);
    seen.add(p.message);
  }
  return out;
}

function problemOf(e: ErrorObject, root: unknown, message: string | undefined): SchemaProblem {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') {
    const pointer = `${e.instancePath}/${escape(String(params.additionalProperty))}`;
    return { message: message ?? describe(e, root), pointer, onKey: true };
  }
  return { message: message ?? describe(e, root), pointer: e.instancePath, onKey: e.keyword === 'required' };
}

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function resolveAlternatives(e: ErrorObject, all: ErrorObject[], dropped: Set<ErrorObject>, replaced: Map<ErrorObject, string>, root: unknown): void {
  const branches = (Array.isArray(e.schema) ? e.schema : []).map((b) => resolveRef(b as Schema));
  const type = jsonType(e.data);
  const matching = branches.filter((b) => typeMatches(schemaTypes(b), type));
  const others = branches.filter((b) => !matching.includes(b));
  for (const o of all) {
    if (o !== e && o.instancePath === e.instancePath && others.includes(o.parentSchema as Schema)) dropped.add(o);
  }
  if (matching.length > 0) {
    dropped.add(e);
    return;
  }
  const types = [...new Set(branches.flatMap((b) => schemaTypes(b) ?? []))];
  replaced.set(e, `${pathText(e.instancePath, root) || '(document)'}: must be ${typesText(types)}`);
}

function resolveRef(s: Schema): Schema {
  const ref = s.$ref;
  if (typeof ref !== 'string') return s;
  return definitions[ref.replace('#/definitions/', '')] ?? s;
}

/** The JSON types a schema accepts at its top level; undefined means any. */
function schemaTypes(s: Schema): string[] | undefined {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return s.type as string[];
  if (s.const !== undefined) return [jsonType(s.const)];
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map(jsonType))];
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(alts)) {
    const each = alts.map((a) => schemaTypes(resolveRef(a)));
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
  return !types || types.includes(type) || (type === 'integer' && types.includes('number'));
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', object: 'a map', array: 'a list', null: 'null',
};

function typesText(types: string[]): string {
  const words = types.filter((t) => !(t === 'integer' && types.includes('number'))).map((t) => TYPE_WORDS[t] ?? t);
  return words.length <= 1 ? (words[0] ?? 'valid') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const COMPARISON: Record<string, string> = { '>': 'greater than', '>=': 'at least', '<': 'less than', '<=': 'at most' };

const at = (base: string, key: string) => (base ? `${base}.${key}` : key);

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
    case 'minProperties': case 'maxProperties': return line(isSingleEntry(e.parentSchema) ? 'must have exactly one entry' : (e.message ?? 'is invalid'));
    case 'pattern': return line(`is not valid (${describeSchema(e.parentSchema) ?? String(p.pattern)})`);
    default: return line(e.message ?? 'is invalid');
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isSingleEntry(s: unknown): boolean {
  return isObj(s) && s.minProperties === 1 && s.maxProperties === 1;
}

function describeSchema(s: unknown): string | undefined {
  return isObj(s) && typeof s.description === 'string' ? s.description.replace(/\.$/, '') : undefined;
}

/** `/steps/1/retryPolicy` as `steps[1] (build).retryPolicy`, as the loader writes paths. */
function pathText(pointer: string, root: unknown): string {
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  let cur: unknown = root;
  let inSteps = segments[0] === 'steps';
  segments.forEach((seg, i) => {
    if (Array.isArray(cur)) {
      cur = cur[Number(seg)];
      out = `${out}[${Number(seg)}]`;
      if (inSteps && isObj(cur) && typeof cur.name === 'string' && cur.name !== '') out = `${out} (${cur.name})`;
    } else {
      cur = isObj(cur) ? cur[seg] : undefined;
      out = at(out, seg);
      if (i > 0) inSteps = false;
    }
  });
  return out;
}
