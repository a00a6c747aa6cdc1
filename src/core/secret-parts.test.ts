import { referencedForms, referenceParts, type TextPart } from './secret-parts.js';

const SECRET = 'to"k\\en';
const refs = new Map(referencedForms([SECRET, 'abc']).map((f, i) => [f, `SVC_SECRET_REF_${i}`]));
const join = (t: string | TextPart[], values: Record<string, string>): string => (typeof t === 'string' ? t : t.map((p) => (typeof p === 'string' ? p : values[p.ref])).join(''));
const values = Object.fromEntries([...refs].map(([f, n]) => [n, f]));

describe('referenceParts', () => {
  test('a text without a secret stays a string', () => {
    expect(referenceParts('echo hello', refs, [SECRET])).toBe('echo hello');
  });

  test('each occurrence, plain or JSON-escaped, is a reference; put together it is the text again', () => {
    for (const text of [`echo ${SECRET}!`, JSON.stringify({ v: SECRET }), `${SECRET}${SECRET}`, `abc ${SECRET} abcabc`]) {
      const parts = referenceParts(text, refs, [SECRET, 'abc']);
      expect(Array.isArray(parts)).toBe(true);
      expect(join(parts, values)).toBe(text);
      expect((parts as TextPart[]).filter((p) => typeof p === 'string').join('')).not.toContain('abc');
      expect(JSON.stringify(parts)).not.toContain(JSON.stringify(SECRET).slice(1, -1));
    }
  });

  test('the longest form wins where two start at the same place', () => {
    const r = new Map(referencedForms(['ab', 'abcd']).map((f, i) => [f, `R${i}`]));
    expect(referenceParts('xabcdx', r, ['ab', 'abcd'])).toEqual(['x', { ref: 'R0' }, 'x']);
  });

  test('a secret without a reference is refused, never written plainly', () => {
    expect(() => referenceParts('echo other-secret', refs, [SECRET, 'other-secret'])).toThrow(/no reference/);
  });
});
