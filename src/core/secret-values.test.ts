import { carriesSecret, dereferenceSecrets, maskSecretForms, referenceSecrets, secretForms } from './secret-values.js';

const nasty = 'p"a\\ss\nw0rd\'x';

describe('carriesSecret', () => {
  it.each<[string, string, string[], boolean]>([
    ['none', 'hello', [], false],
    ['empty secret', 'hello', [''], false],
    ['plain', 'a=hunter2', ['hunter2'], true],
    ['absent', 'a=hunter', ['hunter2'], false],
    ['JSON-escaped', JSON.stringify({ config: { password: nasty } }), [nasty], true],
    ['JSON inside JSON', JSON.stringify({ body: JSON.stringify({ pw: nasty }) }), [nasty], true],
    ['in a key', JSON.stringify({ [nasty]: 1 }), [nasty], true],
    ['argv list', JSON.stringify([['sh', '-c', `echo ${nasty}`]]), [nasty], true],
    ['shell single-quoted', `echo '${nasty.replace(/'/g, `'\\''`)}'`, [nasty], true],
    ['JSON not holding it', JSON.stringify({ a: 'b' }), [nasty], false],
    ['broken JSON', '{"a": "p\\"a', [nasty], false],
  ])('%s', (_n, text, secrets, expected) => {
    expect(carriesSecret(text, secrets)).toBe(expected);
  });

  it('forms are distinct and include the value itself', () => {
    expect(secretForms('abc')).toEqual(['abc']);
    expect(secretForms(nasty)[0]).toBe(nasty);
    expect(secretForms(nasty).length).toBeGreaterThan(2);
  });
});

describe('referenceSecrets / dereferenceSecrets', () => {
  const secrets = [{ name: 'SHORT', value: 'pass' }, { name: 'LONG', value: 'password123' }, { name: 'Q', value: nasty }, { name: 'E', value: '' }];
  it.each([
    ['P=password123 Q=pass', 'P=${LONG} Q=${SHORT}'],
    [`X="${nasty}"`, 'X="${Q}"'],
    ['no secret', 'no secret'],
    ['kept ${OTHER}', 'kept ${OTHER}'],
  ])('%j', (text, stored) => {
    const ref = referenceSecrets(text, secrets);
    expect(ref).toBe(stored);
    for (const s of secrets.filter((x) => x.value)) expect(ref).not.toContain(s.value);
    expect(dereferenceSecrets(ref, secrets)).toBe(text);
  });

  it('round-trips a secret that is part of the reference syntax', () => {
    const odd = [{ name: 'A', value: 'secret-a' }, { name: 'B', value: 'A' }];
    const text = 'x=secret-a y=A';
    expect(dereferenceSecrets(referenceSecrets(text, odd), odd)).toBe(text);
  });
});

test('maskSecretForms masks a secret JSON-escaped', () => {
  expect(maskSecretForms(JSON.stringify({ p: `x${nasty}y` }), [nasty])).toBe('{"p":"x*******y"}');
});
