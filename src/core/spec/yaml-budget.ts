/**
 * The expansion budget of a YAML document: how large its value is once every alias (and merge key) is
 * replaced by what it names. `yaml`'s maxAliasCount bounds how often an alias is used, not what it
 * expands to: a few hundred nested aliases under that count turn a 200 KB spec into a value hundreds of
 * megabytes long once a response or the engine writes it out. The size is measured on the parsed nodes,
 * each anchored node's size computed once, before anything is expanded, so the measure itself costs
 * time linear in the text.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document } from 'yaml';

/** Largest expanded DAG document, in bytes of its JSON text (4 x MAX_SPEC_BYTES: a spec without aliases stays far under). */
export const MAX_EXPANDED_BYTES = 2 * 1024 * 1024;

/**
 * Roughly the JSON length of each node's value, aliases expanded. Nodes are first measured in document
 * order, so an alias (which names the latest anchor before it) finds its node already measured: each
 * node is walked once. `yaml`'s own Alias.resolve searches the whole document per alias instead.
 */
class Measure {
  private readonly memo = new Map<unknown, number>();
  private readonly anchors = new Map<string, unknown>();
  private readonly open = new Set<unknown>();
  /** Whether an alias names a node that contains it: a value with no end, which no JSON can hold. */
  cyclic = false;

  sizeOf(node: unknown): number {
    const known = this.memo.get(node);
    if (known !== undefined) return known;
    if (this.open.has(node)) {
      this.cyclic = true;
      return 1;
    }
    this.open.add(node);
    const anchor = (node as { anchor?: unknown } | null)?.anchor;
    if (typeof anchor === 'string') this.anchors.set(anchor, node);
    const size = Math.min(this.measure(node), Number.MAX_SAFE_INTEGER / 4);
    this.open.delete(node);
    this.memo.set(node, size);
    return size;
  }

  private measure(node: unknown): number {
    if (isAlias(node)) {
      const target = this.anchors.get(node.source);
      return target === undefined ? 1 : this.sizeOf(target);
    }
    if (isScalar(node)) return String(node.value).length + 3;
    if (isMap(node)) return node.items.reduce((n: number, pair) => n + this.sizeOf(pair), 2);
    if (isSeq(node)) return node.items.reduce((n: number, item) => n + this.sizeOf(item) + 1, 2);
    if (isPair(node)) return this.sizeOf(node.key) + this.sizeOf(node.value) + 1;
    return 1;
  }
}

/** The problem of a document whose expanded value exceeds the budget, or undefined. */
export function expansionProblem(doc: Document, budget = MAX_EXPANDED_BYTES): string | undefined {
  const measure = new Measure();
  const size = measure.sizeOf(doc.contents);
  if (measure.cyclic) return 'yaml: an alias names a node that contains it: the value would never end; write the repeated part out';
  if (size <= budget) return undefined;
  return `yaml: the document expands to more than ${budget} bytes (the expansion budget of a DAG spec): its aliases and merge keys repeat too much; write the repeated parts out or reduce them`;
}
