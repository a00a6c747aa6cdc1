import { readFileSync } from 'node:fs';
import { DAG_SCHEMA } from './schema.js';
// @ts-expect-error plain JS module shared with the generator script
import { generateValidator } from '../../../hack/validator-source.mjs';

describe('generated schema validator', () => {
  test('validator.generated.ts matches the schema (run `npm run build && node hack/gen-validator.mjs` when this fails)', () => {
    const committed = readFileSync(new URL('./validator.generated.ts', import.meta.url), 'utf8');
    expect(committed === generateValidator(DAG_SCHEMA)).toBe(true);
  });
});
