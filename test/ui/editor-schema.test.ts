/**
 * The spec editor's schema help (src/ui/editor/schema-docs.ts, complete.ts) over the loader's own DAG
 * schema: the description of a field by its place, and the field names offered where a key is typed.
 */
import { DAG_SCHEMA } from '../../src/core/spec/schema.js';
import { fieldsForKey } from '../../src/ui/editor/complete';
import { SchemaDocs } from '../../src/ui/editor/schema-docs';

const docs = new SchemaDocs(JSON.parse(JSON.stringify(DAG_SCHEMA)) as Record<string, unknown>);

/** The names offered with the cursor at `|`. */
function offered(textWithCursor: string, explicit = false): string[] | undefined {
  const pos = textWithCursor.indexOf('|');
  return fieldsForKey(docs, textWithCursor.replace('|', ''), pos, explicit)?.fields.map((f) => f.name);
}

test('descriptions: a DAG field, a step field through the list and its alternatives, a nested block', () => {
  expect(docs.describeField(['schedule'])).toMatch(/cron/i);
  expect(docs.describeField(['steps', 0, 'depends'])).toMatch(/^Names or ids of the steps this step waits for/);
  expect(docs.describeField(['steps', 'build', 'command'])).toBeDefined();
  expect(docs.describeField(['steps', 1, 'retryPolicy', 'limit'])).toBe('Maximum retries.');
  expect(docs.describeField(['no-such-field'])).toBeUndefined();
});

test('field names: where the line is, less those its map has', () => {
  const top = offered('description: x\nsch|');
  expect(top).toContain('schedule');
  expect(top).not.toContain('description');
  expect(top).not.toContain('command');

  const step = offered('steps:\n  - name: a\n    command: echo\n    ret|\n');
  expect(step).toEqual(expect.arrayContaining(['retryPolicy', 'depends', 'output']));
  expect(step).not.toContain('name');
  expect(step).not.toContain('command');
  expect(step).not.toContain('schedule');

  expect(offered('steps:\n  - name: a\n    retryPolicy:\n      li|\n')).toContain('limit');
  // A new list item, asked for (Ctrl-Space) before any letter.
  expect(offered('steps:\n  - name: a\n    command: x\n  - |', true)).toContain('command');
  expect(offered('steps:\n  - name: a\n    command: x\n  - |', false)).toBeUndefined();
  // Not in a value, nor in a block of text.
  expect(offered('description: sch|')).toBeUndefined();
  expect(offered('steps:\n  - name: a\n    script: |\n      ech|\n')).toBeUndefined();
});
