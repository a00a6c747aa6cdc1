/**
 * The masking cases shared with the step entry binary's masker (src/entry/mask_test.go): the engine and
 * the entry must mask alike, whole text or streamed in any chunks.
 */
import { readFileSync } from 'node:fs';
import { createMasker, maskSecrets } from './mask.js';

interface MaskCase { name: string; text: string; secrets: string[]; expected: string }

const file = new URL('../../../test/fixtures/masking-cases.json', import.meta.url);
const { cases } = JSON.parse(readFileSync(file, 'utf8')) as { cases: MaskCase[] };

function streamed(chunks: string[], secrets: string[]): string {
  const m = createMasker(secrets);
  return chunks.map((c) => m.push(c)).join('') + m.flush();
}

describe('shared masking cases (test/fixtures/masking-cases.json)', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: maskSecrets', (_n, c) => {
    expect(maskSecrets(c.text, c.secrets)).toBe(c.expected);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: streamed in every chunk size and split', (_n, c) => {
    for (let size = 1; size <= c.text.length; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < c.text.length; i += size) chunks.push(c.text.slice(i, i + size));
      expect(streamed(chunks, c.secrets)).toBe(c.expected);
    }
    for (let i = 0; i <= c.text.length; i++) expect(streamed([c.text.slice(0, i), c.text.slice(i)], c.secrets)).toBe(c.expected);
  });
});
