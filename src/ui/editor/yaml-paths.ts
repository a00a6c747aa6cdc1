/**
 * Where a problem is in the YAML text. Problems name a field by path: the schema check by its JSON
 * pointer, the server by text (`steps[1] (build).depends: ...`, `document 2 (sub): name: ...`,
 * `yaml (line 3, column 5): ...`: the forms of core/spec's messages). Both are turned into a path of keys
 * and indexes and looked up in the parsed document, so each can be shown at its line.
 */
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';

export type PathSegment = string | number;

/** A text range [from, to) of the YAML text. */
export interface Span {
  from: number;
  to: number;
}

/** A server message read: which document (0-based), the field path, or a line and column of its own. */
export interface MessagePlace {
  doc: number;
  path?: PathSegment[];
  line?: number;
  column?: number;
}

const DOCUMENT = /^document (\d+)(?: \([^)]*\))?: /;
const YAML_AT = /^yaml \(line (\d+), column (\d+)\): /;
const KEY = /^[^.[\s:]+/;
const INDEX = /^\[(\d+)\](?: \([^)]*\))?/;

/** The place a server message names, or undefined when it names none (a message about the whole file). */
export function placeOfMessage(message: string): MessagePlace | undefined {
  let rest = message;
  let doc = 0;
  const d = DOCUMENT.exec(rest);
  if (d) {
    doc = Number(d[1]) - 1;
    rest = rest.slice(d[0].length);
  }
  const y = YAML_AT.exec(rest);
  if (y) return { doc, line: Number(y[1]), column: Number(y[2]) };
  if (rest.startsWith('(document): ')) return { doc, path: [] };
  const path = parsePath(rest);
  return path ? { doc, path } : undefined;
}

/** `steps[1] (build).retryPolicy.limit: ...` as ['steps', 1, 'retryPolicy', 'limit'], if the text starts with a path and ': '. */
function parsePath(text: string): PathSegment[] | undefined {
  const path: PathSegment[] = [];
  let rest = text;
  for (;;) {
    const i = INDEX.exec(rest);
    const k = i ? undefined : KEY.exec(rest);
    if (i) path.push(Number(i[1]));
    else if (k) path.push(k[0]);
    else return undefined;
    rest = rest.slice((i ?? k)?.[0].length ?? 0);
    if (rest.startsWith(': ')) return path;
    if (rest.startsWith('.')) rest = rest.slice(1);
    else if (!rest.startsWith('[')) return undefined;
  }
}

/** JSON pointer (`/steps/0/name`) to path segments; an index is a number only where the document has a list. */
export function pointerPath(pointer: string): string[] {
  return pointer === '' ? [] : pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function child(node: unknown, seg: PathSegment): { node: Node | undefined; key: Node | undefined } {
  if (isMap(node)) {
    const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : p.key) === String(seg));
    return { node: (pair?.value ?? undefined) as Node | undefined, key: (pair?.key ?? undefined) as Node | undefined };
  }
  if (isSeq(node)) {
    const n = typeof seg === 'number' ? seg : Number(seg);
    return { node: Number.isInteger(n) ? (node.items[n] as Node | undefined) : undefined, key: undefined };
  }
  return { node: undefined, key: undefined };
}

/**
 * The span of the field at `path` in a document: its value, or its key with `onKey` (an unknown field is
 * marked on its name). A path that goes further than the document marks the deepest field it reaches.
 */
export function spanOf(doc: Document, path: readonly PathSegment[], onKey = false): Span | undefined {
  let node: unknown = doc.contents;
  let key: Node | undefined;
  for (const seg of path) {
    const next = child(node, seg);
    if (!next.node && !next.key) break;
    node = next.node;
    key = next.key;
  }
  const target = (onKey && key) || (node as Node | null | undefined) || key;
  const range = target?.range ?? (doc.contents as Node | null)?.range;
  return range ? { from: range[0], to: Math.max(range[0], range[1]) } : undefined;
}
