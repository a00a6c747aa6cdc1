/**
 * The DAG JSON Schema (core/spec/schema.ts) as a structural OpenAPI v3 schema for a CRD: references
 * inlined, every node typed, descriptions kept (so `kubectl explain dag.spec.steps` says something).
 * What a structural schema cannot say (a field that is a string or a list, `type: [..]`) becomes a
 * node that keeps whatever it holds (x-kubernetes-preserve-unknown-fields): the admission webhook
 * validates those with the full schema. No defaults are written: a Dag applied by GitOps stays as
 * written. Pure.
 */

export type JsonSchema = Record<string, unknown>;

const SCALAR_KEYWORDS = ['enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const;

/** A node that keeps what it holds: any JSON value, unvalidated here. */
const anyValue = (description?: string): JsonSchema => ({ ...(description ? { description } : {}), 'x-kubernetes-preserve-unknown-fields': true });

export class StructuralConverter {
  constructor(private readonly definitions: Record<string, JsonSchema>) {}

  convert(node: JsonSchema, seen: readonly string[] = []): JsonSchema {
    const description = typeof node.description === 'string' ? node.description : undefined;
    const ref = node.$ref;
    if (typeof ref === 'string') {
      const name = ref.replace('#/definitions/', '');
      const target = this.definitions[name];
      // A recursive reference cannot be inlined: its inner level keeps whatever it holds.
      if (!target || seen.includes(name)) return anyValue(description);
      const inner = this.convert(target, [...seen, name]);
      return description ? { ...inner, description } : inner;
    }
    const branches = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
    if (branches) return this.union(branches, description, seen);
    if (Array.isArray(node.type)) return anyValue(description);
    return this.typed(node, description, seen);
  }

  /** Branches of one scalar type merge (string with or without an enum is a string); others keep anything. */
  private union(branches: JsonSchema[], description: string | undefined, seen: readonly string[]): JsonSchema {
    const resolved = branches.map((b) => this.convert(b, seen));
    const types = new Set(resolved.map((b) => b.type));
    const [only] = [...types];
    if (types.size === 1 && typeof only === 'string' && only !== 'object' && only !== 'array') {
      return { type: only, ...(description ? { description } : {}) };
    }
    return anyValue(description);
  }

  private typed(node: JsonSchema, description: string | undefined, seen: readonly string[]): JsonSchema {
    const out: JsonSchema = { ...(typeof node.type === 'string' ? { type: node.type } : {}), ...(description ? { description } : {}) };
    for (const k of SCALAR_KEYWORDS) if (node[k] !== undefined) out[k] = node[k];
    if (node.type === 'array') {
      out.items = node.items && typeof node.items === 'object' ? this.convert(node.items as JsonSchema, seen) : anyValue();
      return out;
    }
    if (node.type !== 'object') return out.type ? out : anyValue(description);
    const props = node.properties as Record<string, JsonSchema> | undefined;
    if (props) {
      out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.convert(v, seen)]));
      if (Array.isArray(node.required)) out.required = node.required;
      return out;
    }
    const extra = node.additionalProperties;
    if (extra && typeof extra === 'object') return { ...out, additionalProperties: this.convert(extra as JsonSchema, seen) };
    return { ...out, 'x-kubernetes-preserve-unknown-fields': true };
  }
}

/** Checks the rules of a structural schema that this conversion must keep; returns the problems (empty when fine). */
export function structuralProblems(node: unknown, path = ''): string[] {
  if (typeof node !== 'object' || node === null) return [];
  const n = node as JsonSchema;
  const problems: string[] = [];
  for (const bad of ['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'default', '$schema', 'definitions']) {
    if (bad in n) problems.push(`${path || '/'}: ${bad}`);
  }
  if (!n.type && !n['x-kubernetes-preserve-unknown-fields'] && !n['x-kubernetes-int-or-string']) problems.push(`${path || '/'}: no type`);
  if (n.properties && n.additionalProperties) problems.push(`${path}: properties and additionalProperties`);
  for (const [k, v] of Object.entries((n.properties ?? {}) as Record<string, unknown>)) problems.push(...structuralProblems(v, `${path}/${k}`));
  if (n.items) problems.push(...structuralProblems(n.items, `${path}/items`));
  if (n.additionalProperties && typeof n.additionalProperties === 'object') problems.push(...structuralProblems(n.additionalProperties, `${path}/*`));
  return problems;
}
