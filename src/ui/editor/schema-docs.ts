/**
 * What the DAG schema says of a field: its description (the schema's own words, SPEC 2.2-2.6) and the
 * fields a map may have at a place, found by the path of that place in the parsed document. The editor
 * shows descriptions on hover and completes field names with them. Pure: the schema is handed in.
 */
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';
import type { PathSegment } from './yaml-paths';

export type Schema = Record<string, unknown>;

/** A field the schema allows at some place, for completion. */
export interface FieldChoice {
  name: string;
  description: string | undefined;
}

export class SchemaDocs {
  private readonly definitions: Record<string, Schema>;

  constructor(private readonly root: Schema) {
    this.definitions = (root.definitions ?? {}) as Record<string, Schema>;
  }

  /** The description of the field at `path`, if the schema has one. */
  describeField(path: readonly PathSegment[]): string | undefined {
    for (const s of this.schemasAt(path).flatMap((x) => this.expand(x))) {
      if (typeof s.description === 'string' && s.description) return s.description;
    }
    return undefined;
  }

  /** The fields the schema allows in the map at `path` (its named properties, all alternatives merged). */
  fieldsAt(path: readonly PathSegment[]): FieldChoice[] {
    const out = new Map<string, FieldChoice>();
    for (const s of this.schemasAt(path).flatMap((x) => this.expand(x))) {
      for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
        if (!out.has(name)) out.set(name, { name, description: this.expand(prop).map((p) => p.description).find((d): d is string => typeof d === 'string') });
      }
    }
    return [...out.values()];
  }

  /** The schemas a path can mean (several where alternatives allow it). */
  private schemasAt(path: readonly PathSegment[]): Schema[] {
    let at: Schema[] = [this.root];
    for (const seg of path) at = at.flatMap((s) => this.expand(s)).flatMap((s) => childSchemas(s, seg));
    return at;
  }

  /** The schema and its alternatives, with references followed (anyOf, oneOf and allOf flattened). */
  private expand(s: Schema, depth = 0): Schema[] {
    if (depth > 8) return [];
    const ref = typeof s.$ref === 'string' ? this.definitions[s.$ref.replace('#/definitions/', '')] : undefined;
    const self = ref ? [s, ...this.expand(ref, depth + 1)] : [s];
    const alts = ['anyOf', 'oneOf', 'allOf'].flatMap((k) => (Array.isArray(s[k]) ? (s[k] as Schema[]) : []));
    return [...self, ...alts.flatMap((a) => this.expand(a, depth + 1))];
  }
}

function childSchemas(s: Schema, seg: PathSegment): Schema[] {
  if (typeof seg === 'number') {
    const items = s.items;
    return items && typeof items === 'object' && !Array.isArray(items) ? [items as Schema] : [];
  }
  const props = (s.properties ?? {}) as Record<string, Schema>;
  if (props[seg]) return [props[seg]];
  const extra = s.additionalProperties;
  return extra && typeof extra === 'object' ? [extra as Schema] : [];
}

const contains = (n: Node | null | undefined, pos: number) => Boolean(n?.range && n.range[0] <= pos && pos <= n.range[1]);

/** The path of the map key under `pos` (and its text span), or undefined when `pos` is on no key. */
export function keyAt(doc: Document, pos: number): { path: PathSegment[]; from: number; to: number } | undefined {
  const walk = (node: unknown, path: PathSegment[]): { path: PathSegment[]; from: number; to: number } | undefined => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = pair.key as Node | null;
        const name = isScalar(key) ? String(key.value) : undefined;
        if (name === undefined) continue;
        if (key?.range && contains(key, pos)) return { path: [...path, name], from: key.range[0], to: key.range[1] };
        if (contains(pair.value as Node | null, pos)) return walk(pair.value, [...path, name]);
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) {
        if (contains(item as Node | null, pos)) return walk(item, [...path, i]);
      }
    }
    return undefined;
  };
  return walk(doc.contents, []);
}

/** The keys a map in the document has already (they are not offered again). */
export function keysOfMapAt(doc: Document, path: readonly PathSegment[]): Set<string> {
  let node: unknown = doc.contents;
  for (const seg of path) {
    if (isMap(node)) node = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg))?.value;
    else if (isSeq(node)) node = node.items[Number(seg)];
    else return new Set();
  }
  return new Set(isMap(node) ? node.items.flatMap((p) => (isScalar(p.key) ? [String(p.key.value)] : [])) : []);
}
