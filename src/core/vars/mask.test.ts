import { createMasker, MASK, maskSecrets } from './mask.js';

const M = MASK;

describe('maskSecrets', () => {
  it.each<[string, string, string[], string]>([
    ['no secrets', 'hello', [], 'hello'],
    ['empty secret ignored', 'hello', [''], 'hello'],
    ['single', 'token=abc123;', ['abc123'], `token=${M};`],
    ['every occurrence', 'abc abc', ['abc'], `${M} ${M}`],
    ['adjacent occurrences stay separate', 'abcabc', ['abc'], `${M}${M}`],
    ['longest first', 'password123', ['pass', 'password123'], M],
    ['shorter inside longer elsewhere', 'pass password123', ['pass', 'password123'], `${M} ${M}`],
    ['overlapping secrets merge', 'xabcdx', ['abc', 'bcd'], `x${M}x`],
    ['self-overlapping occurrences merge', 'aaaa', ['aaa'], M],
    ['duplicates in the list', 's s', ['s', 's'], `${M} ${M}`],
    ['regex characters are literal', 'a.b*c a?b', ['a.b*c', '?'], `${M} a${M}b`],
    ['multi-line secret', 'x\nline1\nline2\ny', ['line1\nline2'], `x\n${M}\ny`],
    ['empty text', '', ['abc'], ''],
  ])('%s', (_l, text, secrets, expected) => {
    expect(maskSecrets(text, secrets)).toBe(expected);
  });
});

function streamed(chunks: string[], secrets: string[]): string {
  const m = createMasker(secrets);
  return chunks.map((c) => m.push(c)).join('') + m.flush();
}

function chunksOf(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

describe('createMasker', () => {
  const cases: Array<[string, string[]]> = [
    ['prefix secret-value suffix secret-value', ['secret-value']],
    ['password123 and pass and password123', ['pass', 'password123']],
    ['--abcd--bcdabc--', ['abc', 'bcd']],
    ['aaaaaaa b aaa', ['aaa']],
    ['no secret here at all', ['zzz']],
    ['x\nline1\nline2\ny', ['line1\nline2', 'e']],
  ];

  it.each(cases)('matches maskSecrets for every chunk size: %j', (text, secrets) => {
    for (let size = 1; size <= text.length; size++) {
      expect(streamed(chunksOf(text, size), secrets)).toBe(maskSecrets(text, secrets));
    }
  });

  it.each(cases)('matches maskSecrets for every two-way split: %j', (text, secrets) => {
    for (let i = 0; i <= text.length; i++) {
      expect(streamed([text.slice(0, i), text.slice(i)], secrets)).toBe(maskSecrets(text, secrets));
    }
  });

  it('masks a secret split across two chunks', () => {
    const m = createMasker(['hunter2']);
    const first = m.push('the password is hun');
    const second = m.push('ter2!');
    expect(first + second + m.flush()).toBe(`the password is ${M}!`);
    expect(first).not.toContain('hun');
  });

  it('holds back at most longest-1 characters', () => {
    const m = createMasker(['abcde', 'xy']);
    expect(m.push('0123456789')).toBe('012345');
    expect(m.push('')).toBe('');
    expect(m.flush()).toBe('6789');
  });

  it('passes chunks through when there are no secrets', () => {
    const m = createMasker(['']);
    expect(m.push('abc')).toBe('abc');
    expect(m.flush()).toBe('');
  });

  it('is reusable after flush', () => {
    const m = createMasker(['sec']);
    expect(m.push('se') + m.flush()).toBe('se');
    expect(m.push('c') + m.flush()).toBe('c');
    expect(m.push('sec') + m.flush()).toBe(M);
  });
});
