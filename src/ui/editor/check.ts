/**
 * Checking a DAG text as it is typed: YAML syntax and the DAG JSON Schema here in the browser, at once;
 * then the server's POST /dags/validate for what the schema cannot see (unknown depends, cycles, name
 * rules, calls...). Each problem is placed at its line when its path names a field of the text.
 */
import { parseAllDocuments, type Document } from 'yaml';
import { schemaProblems } from './schema-check';
import { placeOfMessage, pointerPath, spanOf, type Span } from './yaml-paths';

export interface Problem {
  message: string;
  /** Where it is in the text (absent: it names no field, e.g. a call cycle through other DAGs). */
  span?: Span;
  /** 'editor': found here (syntax, schema); 'server': said by the server's validation. */
  source: 'editor' | 'server';
}

export interface LocalCheck {
  problems: Problem[];
  /** The text is not YAML: the server would only say so again. */
  syntaxError: boolean;
  docs: Document[];
}

const MAX_ALIAS_COUNT = 1000;

function lineStart(text: string, line: number): number {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  return at;
}

/** Only the first line of a span: a long block (a whole step) is marked where it starts. */
function firstLine(text: string, span: Span): Span {
  const nl = text.indexOf('\n', span.from);
  const end = nl < 0 ? text.length : nl;
  return { from: span.from, to: Math.max(span.from, Math.min(span.to, end)) };
}

function docPrefix(i: number, value: unknown): string {
  if (i === 0) return '';
  const name = typeof value === 'object' && value && typeof (value as { name?: unknown }).name === 'string' ? (value as { name: string }).name : '';
  return `document ${i + 1}${name ? ` (${name})` : ''}: `;
}

/** Syntax and schema problems of every document of the text. */
export function checkLocally(text: string): LocalCheck {
  const docs = Array.from(parseAllDocuments(text, { merge: true, prettyErrors: false, uniqueKeys: true }) as Iterable<Document>);
  const problems: Problem[] = [];
  let syntaxError = false;
  docs.forEach((doc, i) => {
    for (const e of doc.errors) {
      syntaxError = true;
      const from = Math.min(e.pos[0], text.length);
      problems.push({ message: `yaml: ${e.message.split('\n')[0] ?? ''}`, span: firstLine(text, { from, to: Math.max(from, Math.min(e.pos[1], text.length)) }), source: 'editor' });
    }
    if (doc.errors.length > 0 || (i > 0 && doc.contents === null)) return;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch {
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    for (const p of schemaProblems(value)) {
      const span = spanOf(doc, pointerPath(p.pointer), p.onKey);
      problems.push({ message: docPrefix(i, value) + p.message, ...(span ? { span: firstLine(text, span) } : {}), source: 'editor' });
    }
  });
  return { problems, syntaxError, docs };
}

/** The server's messages placed in the text; those the editor found already (same words) are left out. */
export function placeServerMessages(text: string, local: LocalCheck, messages: readonly string[]): Problem[] {
  const known = new Set(local.problems.map((p) => p.message));
  return messages.filter((m) => !known.has(m)).map((message) => {
    const place = placeOfMessage(message);
    const doc = place ? local.docs[place.doc] : undefined;
    let span: Span | undefined;
    if (place?.line !== undefined) {
      const from = Math.min(text.length, lineStart(text, place.line) + Math.max(0, (place.column ?? 1) - 1));
      span = firstLine(text, { from, to: text.length });
    } else if (place?.path && doc) {
      const s = spanOf(doc, place.path);
      if (s) span = firstLine(text, s);
    }
    return { message, ...(span ? { span } : {}), source: 'server' as const };
  });
}

/** The 1-based line of an offset. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
