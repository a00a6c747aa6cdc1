#!/usr/bin/env node
// Generates src/core/spec/validator.generated.ts: the DAG JSON Schema compiled ahead of time with ajv's
// standalone code, so loading a DAG does not compile the schema at run time (hundreds of ms per process).
// Run after changing src/core/spec/schema*.ts: `npm run build && node hack/gen-validator.mjs`.
// test: src/core/spec/validator.test.ts fails when the committed file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateValidator } from './validator-source.mjs';

const { DAG_SCHEMA } = await import('../dist/core/spec/schema.js');
const out = fileURLToPath(new URL('../src/core/spec/validator.generated.ts', import.meta.url));
writeFileSync(out, generateValidator(DAG_SCHEMA));
console.log(`wrote ${out}`);
