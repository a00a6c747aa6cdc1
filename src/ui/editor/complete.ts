/**
 * Completion of field names from the DAG schema: where a line holds only indentation (and `- `) and the
 * start of a word, the names the schema allows in the map that line belongs to are offered, with their
 * descriptions, less those the map has. Where that map is, YAML tells: the line is parsed with the word
 * made a key.
 */
import type { CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { parseAllDocuments, type Document } from 'yaml';
import { keyAt, keysOfMapAt, type FieldChoice, type SchemaDocs } from './schema-docs';

const KEY_START = /^(\s*)(-\s+)?([A-Za-z_][\w.-]*)?$/;
const PLACEHOLDER = 'svcCompletionKey';

/** The fields to offer at `pos` of `text` (the start of the word typed so far), or undefined. */
export function fieldsForKey(docs: SchemaDocs, text: string, pos: number, explicit: boolean): { from: number; fields: FieldChoice[] } | undefined {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  const nl = text.indexOf('\n', pos);
  const lineEnd = nl < 0 ? text.length : nl;
  const m = KEY_START.exec(text.slice(lineStart, pos));
  if (!m) return undefined;
  const word = m[3] ?? '';
  if (!word && !explicit) return undefined;
  const from = pos - word.length;
  // The line as a key of its map: `  - ret|` becomes `  - svcCompletionKey: null`.
  const patched = `${text.slice(0, from)}${PLACEHOLDER}: null${text.slice(lineEnd)}`;
  const all = Array.from(parseAllDocuments(patched) as Iterable<Document>);
  const doc = all.find((d) => d.range && d.range[0] <= from && from <= d.range[2]) ?? all[all.length - 1];
  const key = doc ? keyAt(doc, from) : undefined;
  if (!doc || !key || key.path[key.path.length - 1] !== PLACEHOLDER) return undefined;
  const parent = key.path.slice(0, -1);
  const taken = keysOfMapAt(doc, parent);
  const fields = docs.fieldsAt(parent).filter((f) => !taken.has(f.name));
  return fields.length > 0 ? { from, fields } : undefined;
}

export function fieldCompletion(docs: SchemaDocs): CompletionSource {
  return (ctx: CompletionContext): CompletionResult | null => {
    const found = fieldsForKey(docs, ctx.state.doc.toString(), ctx.pos, ctx.explicit);
    if (!found) return null;
    const options = found.fields.map((f) => ({ label: f.name, type: 'property', apply: `${f.name}: `, ...(f.description ? { info: f.description } : {}) }));
    return { from: found.from, options, validFor: /^[\w.-]*$/ };
  };
}
