/**
 * The spec editor places the loader's messages at their line (src/ui/editor/yaml-paths.ts): every form
 * core/spec writes (a field path with step labels, a local DAG's prefix, a YAML syntax position).
 */
import { parseAllDocuments, type Document } from 'yaml';
import { loadDagText } from '../../src/core/spec/load.js';
import { placeOfMessage, spanOf } from '../../src/ui/editor/yaml-paths';

const TEXT = `name: outer
steps:
  - name: build
    command: make
  - name: test
    command: make test
    depends: [build, nowhere]
    retryPolicy:
      limit: -3
---
name: sub
steps:
  - name: inner
    command: echo hi
    depends: ghost
`;

function lineOfMessage(text: string, message: string): number | undefined {
  const docs = Array.from(parseAllDocuments(text) as Iterable<Document>);
  const place = placeOfMessage(message);
  if (!place) return undefined;
  if (place.line !== undefined) return place.line;
  const doc = docs[place.doc];
  const span = doc && place.path ? spanOf(doc, place.path) : undefined;
  return span ? text.slice(0, span.from).split('\n').length : undefined;
}

test('each of the loader\'s messages about a file is placed at the line of its field', () => {
  const { errors } = loadDagText(TEXT, { fileName: 'outer' });
  const at = (part: string) => {
    const m = errors.find((e) => e.includes(part));
    expect(m).toBeDefined();
    return lineOfMessage(TEXT, m ?? '');
  };
  expect(at('unknown step "nowhere"')).toBe(7);
  expect(at('limit')).toBe(9);
  expect(at('unknown step "ghost"')).toBe(15);
});

test('message forms: paths, indexes with labels, map steps, local DAGs, YAML positions, none', () => {
  expect(placeOfMessage('steps[1] (test).retryPolicy.limit: must be at least 0')).toEqual({ doc: 0, path: ['steps', 1, 'retryPolicy', 'limit'] });
  expect(placeOfMessage('steps.build.command: is required')).toEqual({ doc: 0, path: ['steps', 'build', 'command'] });
  expect(placeOfMessage('document 2 (sub): steps[0] (inner).depends: unknown step "ghost"')).toEqual({ doc: 1, path: ['steps', 0, 'depends'] });
  expect(placeOfMessage('yaml (line 3, column 5): Nested mappings are not allowed')).toEqual({ doc: 0, line: 3, column: 5 });
  expect(placeOfMessage('(document): is empty')).toEqual({ doc: 0, path: [] });
  expect(placeOfMessage('call cycle: a -> b -> a')).toBeUndefined();
});

test('an unknown field is marked on its name; a path beyond the text marks the deepest field it reaches', () => {
  const text = 'steps:\n  - name: a\n    comand: x\n';
  const [doc] = Array.from(parseAllDocuments(text) as Iterable<Document>);
  const key = spanOf(doc!, ['steps', '0', 'comand'], true);
  expect(text.slice(key!.from, key!.to)).toBe('comand');
  const deepest = spanOf(doc!, ['steps', 0, 'retryPolicy', 'limit']);
  expect(text.slice(deepest!.from).startsWith('name: a')).toBe(true);
});
