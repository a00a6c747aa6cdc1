import { wildcardMatch } from './wildcard.js';

/** The reference: the regular expression the wildcards mean (fine for the short inputs below). */
function byRegex(pattern: string, text: string): boolean {
  const body = pattern.replace(/[.+^${}()|[\]\\/-]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's').test(text);
}

describe('wildcardMatch', () => {
  it.each([
    ['', '', true], ['', 'a', false], ['*', '', true], ['*', 'abc', true], ['?', '', false], ['?', 'a', true],
    ['a*', 'abc', true], ['*c', 'abc', true], ['a?c', 'abc', true], ['a?c', 'ac', false], ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyy', false], ['*a*', 'bab', true], ['env', 'env', true], ['env', 'envx', false],
    ['e.v', 'eav', false], ['e.v', 'e.v', true], ['**', 'x', true], ['*?', '', false], ['*?*?', 'ab', true],
  ])('%j against %j is %s', (pattern, text, expected) => {
    expect(wildcardMatch(pattern, text)).toBe(expected);
    expect(byRegex(pattern, text)).toBe(expected);
  });

  it('agrees with the regular expression on random short inputs', () => {
    let seed = 7;
    const rnd = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const word = (alphabet: string, max: number): string => Array.from({ length: rnd(max + 1) }, () => alphabet[rnd(alphabet.length)]).join('');
    for (let i = 0; i < 5000; i++) {
      const pattern = word('ab*?', 6);
      const text = word('ab', 7);
      expect([pattern, text, wildcardMatch(pattern, text)]).toEqual([pattern, text, byRegex(pattern, text)]);
    }
  });

  it('takes time linear in the product of the lengths on a pattern that makes a regular expression backtrack', () => {
    // 63 and 255 are the longest tag key and value; the answer comes from the walk, not from a timer.
    const pattern = `${'*?'.repeat(127)}x`;
    expect(wildcardMatch(pattern, 'a'.repeat(255))).toBe(false);
    expect(wildcardMatch(pattern, `${'a'.repeat(254)}x`)).toBe(true);
  });
});
