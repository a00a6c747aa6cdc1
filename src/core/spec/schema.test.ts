import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parseAllDocuments } from 'yaml';
import { DAG_SCHEMA } from './schema.js';

const here = dirname(fileURLToPath(import.meta.url));
const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(DAG_SCHEMA as object);

describe('DAG_SCHEMA', () => {
  const docs = parseAllDocuments(readFileSync(join(here, 'testdata/schema/cases.yaml'), 'utf8'));
  const cases = Array.from(docs).map((d, i) => [i, d.toJS() as { valid: boolean; dag: unknown }] as const);

  it.each(cases)('case %i', (_i, c) => {
    expect(validate(c.dag)).toBe(c.valid);
  });

  it.each(readdirSync(join(here, 'testdata/valid')))('accepts valid/%s', (file) => {
    const text = readFileSync(join(here, 'testdata/valid', file), 'utf8');
    for (const d of parseAllDocuments(text, { merge: true })) {
      expect(validate(d.toJS())).toBe(true);
    }
  });

  it('describes every top-level and step property', () => {
    const missing: string[] = [];
    const defs = DAG_SCHEMA.definitions as Record<string, { description?: string }>;
    const described = (v: { description?: string; $ref?: string }) =>
      Boolean(v.description ?? (v.$ref && defs[v.$ref.replace('#/definitions/', '')]?.description));
    const check = (props: Record<string, { description?: string; $ref?: string }>, where: string) => {
      for (const [k, v] of Object.entries(props)) if (!described(v)) missing.push(`${where}.${k}`);
    };
    check(DAG_SCHEMA.properties as never, 'dag');
    check(DAG_SCHEMA.definitions.step.properties as never, 'step');
    expect(missing).toEqual([]);
  });
});
