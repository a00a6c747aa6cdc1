/**
 * loadDagText: one DAG file (possibly several YAML documents) to LoadedDagFile. Pure and total: every
 * problem (YAML syntax, schema, semantic) becomes a message naming its field, and nothing throws.
 */
import { parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import type { DagDefinition, LoadedDagFile } from './types.js';
import { buildDag } from './dag.js';
import { Problems, unique } from './errors.js';
import { schemaProblems } from './validate.js';
import { isObj, str } from './values.js';
import { readPlainYaml } from './plain-yaml.js';
import { expansionProblem } from './yaml-budget.js';

export interface LoadOptions {
  /** Stored file name without extension: the default DAG name. */
  fileName: string;
}

/** Aliases expanded at most this many times: a bound on "billion laughs" documents. */
const MAX_ALIAS_COUNT = 1000;

interface DocResult {
  dag?: DagDefinition;
  errors: string[];
  /** The written `name` (local DAGs). */
  name?: string;
}

/** 1-based line and column of an offset. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

/** One YAML document read: its value, or the problems that kept it from being read. */
interface ReadDoc {
  value?: unknown;
  errors: string[];
}

/**
 * The documents of a file that have content (their 1-based position kept for messages). Plain block
 * YAML is read by the fast reader (plain-yaml.ts); anything else by `yaml`, with the same values.
 */
function readDocuments(text: string): Array<ReadDoc & { n: number }> {
  const plain = readPlainYaml(text);
  if (plain) return plain.map((value, i) => ({ value, errors: [], n: i + 1 }));
  const docs = Array.from(parseAllDocuments(text, { merge: true, prettyErrors: false, uniqueKeys: true }) as unknown as Document[]);
  return docs.map((d, i) => ({ d, n: i + 1 })).filter(({ d, n }) => n === 1 || hasContent(d)).map(({ d, n }) => ({ ...readDocument(d, text), n }));
}

function readDocument(doc: Document, text: string): ReadDoc {
  const syntax = doc.errors.map((e) => `yaml (${lineCol(text, e.pos[0])}): ${e.message.split('\n')[0]}`);
  if (syntax.length > 0) return { errors: syntax };
  // Over the budget the value is never built: no caller (a response, the engine) can write it out.
  const expansion = expansionProblem(doc);
  if (expansion) return { errors: [expansion] };
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), errors: [] };
  } catch (err) {
    return { errors: [`yaml: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

function loadDocument(doc: ReadDoc, defaultName: string): DocResult {
  if (doc.errors.length > 0) return { errors: doc.errors };
  const { value } = doc;
  if (!isObj(value)) {
    return { errors: [value === null || value === undefined ? '(document): is empty' : '(document): must be a map of DAG fields'] };
  }
  const problems = new Problems();
  const schema = schemaProblems(value);
  const dag = buildDag(value, defaultName, problems);
  return { dag, errors: unique([...schema, ...problems.list]), name: str(value.name) };
}

function hasContent(doc: Document): boolean {
  return doc.contents !== null || doc.errors.length > 0;
}

function localDag(doc: ReadDoc, seen: Set<string>): LoadedDagFile['localDags'][number] {
  const r = loadDocument(doc, '');
  const errors = [...r.errors];
  const name = r.name ?? r.dag?.name ?? '';
  if (r.dag && r.name === undefined) errors.unshift('name: is required in a local DAG (document 2 and later)');
  if (name !== '' && seen.has(name)) errors.push(`name: duplicate DAG name "${name}" in this file`);
  seen.add(name);
  return r.dag ? { name, dag: r.dag, errors: unique(errors) } : { name, errors: unique(errors) };
}

function load(text: string, opts: LoadOptions): LoadedDagFile {
  const [first, ...locals] = readDocuments(text);
  if (!first) return { localDags: [], errors: ['(document): is empty'] };
  const main = loadDocument(first, opts.fileName);
  const seen = new Set<string>(main.dag ? [main.dag.name] : []);
  const localDags = locals.map((d) => localDag(d, seen));
  const errors = [
    ...main.errors,
    ...localDags.flatMap((l, i) => l.errors.map((e) => `document ${locals[i]?.n}${l.name ? ` (${l.name})` : ''}: ${e}`)),
  ];
  return main.dag ? { dag: main.dag, localDags, errors } : { localDags, errors };
}

/**
 * Loads a DAG file. `dag` is present whenever the main document is a map, even with problems: callers
 * must check `errors` before running it. Never throws: an unexpected failure is reported as a problem.
 */
export function loadDagText(text: string, opts: LoadOptions): LoadedDagFile {
  try {
    return load(typeof text === 'string' ? text : String(text), opts);
  } catch (err) {
    return { localDags: [], errors: [`internal error while loading: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

/**
 * A DAG text as the engine runs it: the definition (a stub named after the file when the text is not
 * a DAG at all), its local DAGs by name, and every problem (at least one when there is no DAG).
 */
export function parseDagText(text: string, fileName: string) {
  const file = loadDagText(text, { fileName });
  const localDags: Record<string, DagDefinition> = {};
  for (const l of file.localDags) if (l.dag) localDags[l.name] = l.dag;
  const errors = file.dag ? file.errors : file.errors.length ? file.errors : ['invalid DAG'];
  return { file, definition: file.dag ?? ({ name: fileName } as DagDefinition), localDags, errors };
}
