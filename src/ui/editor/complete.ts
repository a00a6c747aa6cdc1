/**
 * Completion of field names from the DAG schema: where a line holds only indentation (and `- `) and the
 * start of a word, the names the schema allows in the map that line belongs to are offered, with their
 * descriptions. Where that map is, YAML tells: the line is parsed with the word made a key.
 */
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { parseAllDocuments, type Document } from 'yaml';
import { fieldsAt, keyAt, keysOfMapAt } from './schema-docs';

const KEY_START = /^(\s*)(-\s+)?([A-Za-z_][\w.-]*)?$/;
const PLACEHOLDER = 'svcCompletionKey';

export function completeField(ctx: CompletionContext): CompletionResult | null {
  const line = ctx.state.doc.lineAt(ctx.pos);
  const before = line.text.slice(0, ctx.pos - line.from);
  const m = KEY_START.exec(before);
  if (!m) return null;
  const word = m[3] ?? '';
  if (!word && !ctx.explicit) return null;
  const from = ctx.pos - word.length;
  // The line as a key of its map: `  - ret|` becomes `  - svcCompletionKey: null`.
  const text = ctx.state.doc.toString();
  const patched = `${text.slice(0, from)}${PLACEHOLDER}: null${text.slice(line.to)}`;
  const docs = Array.from(parseAllDocuments(patched) as Iterable<Document>);
  const doc = docs.find((d) => d.range && d.range[0] <= from && from <= d.range[2]) ?? docs[docs.length - 1];
  const key = doc ? keyAt(doc, from) : undefined;
  if (!doc || !key || key.path[key.path.length - 1] !== PLACEHOLDER) return null;
  const parent = key.path.slice(0, -1);
  const taken = keysOfMapAt(doc, parent);
  const options = fieldsAt(parent).filter((f) => !taken.has(f.name)).map((f) => ({
    label: f.name, type: 'property', apply: `${f.name}: `, ...(f.description ? { info: f.description } : {}),
  }));
  return options.length > 0 ? { from, options, validFor: /^[\w.-]*$/ } : null;
}
