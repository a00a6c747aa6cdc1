import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { blobType, fingerprint, knownName, matches, parseKnownHosts, preferredAlgorithms, verifyHostKey } from './known-hosts.js';

/** A public key blob of the given type (the type string, then random bytes standing for the key). */
function blob(type: string): Buffer {
  const t = Buffer.from(type);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  return Buffer.concat([len, t, randomBytes(32)]);
}
const line = (hosts: string, key: Buffer, marker = ''): string => `${marker}${marker ? ' ' : ''}${hosts} ${blobType(key)} ${key.toString('base64')}`;
const hashedName = (name: string): string => {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
};
const where = { host: '10.1.2.3', port: 2222, file: '/kh' };

describe('known_hosts', () => {
  const key = blob('ssh-ed25519');
  const other = blob('ssh-ed25519');

  test('names: port 22 is the bare host, another port is [host]:port', () => {
    expect(knownName('h', 22)).toBe('h');
    expect(knownName('h', 2222)).toBe('[h]:2222');
  });

  test('comments, blank and malformed lines are skipped; line numbers are kept', () => {
    const e = parseKnownHosts(`# comment\n\nbroken\n${line('a,b', key)}\n`);
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ line: 4, hosts: ['a', 'b'], keyType: 'ssh-ed25519' });
  });

  test.each([
    ['[10.1.2.3]:2222', true],
    ['10.1.2.3', false],
    ['[10.1.2.*]:2222', true],
    ['[10.1.2.?]:22*', true],
    ['other,[10.1.2.3]:2222', true],
    ['[10.1.2.*]:2222,![10.1.2.3]:2222', false],
  ])('pattern %s matches [10.1.2.3]:2222: %s', (hosts, expected) => {
    expect(matches(parseKnownHosts(line(hosts, key))[0]!, '[10.1.2.3]:2222')).toBe(expected);
  });

  test('hashed names match by their HMAC only', () => {
    const [e] = parseKnownHosts(line(hashedName('[10.1.2.3]:2222'), key));
    expect(matches(e!, '[10.1.2.3]:2222')).toBe(true);
    expect(matches(e!, '[10.1.2.3]:2223')).toBe(false);
  });

  test('the known key is accepted; another key of the type is a mismatch naming the line', () => {
    const entries = parseKnownHosts(`${line('x', other)}\n${line('[10.1.2.3]:2222', key)}\n`);
    expect(verifyHostKey(entries, where, key)).toEqual({ ok: true });
    const v = verifyHostKey(entries, where, other);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason).toContain('host key mismatch for 10.1.2.3:2222');
    expect(!v.ok && v.reason).toContain('/kh (line 2)');
    expect(!v.ok && v.reason).toContain(fingerprint(other));
  });

  test('a host without entries is unknown; one known by another key type says which', () => {
    const v = verifyHostKey(parseKnownHosts(line('elsewhere', key)), where, key);
    expect(!v.ok && v.reason).toMatch(/host key of 10\.1\.2\.3:2222 is unknown: \/kh has no ssh-ed25519 key for \[10\.1\.2\.3\]:2222; add it \(ssh-keyscan -p 2222 10\.1\.2\.3 >> \/kh\)/);
    const rsa = blob('ssh-rsa');
    const w = verifyHostKey(parseKnownHosts(line('[10.1.2.3]:2222', rsa)), where, key);
    expect(!w.ok && w.reason).toContain('knows only ssh-rsa keys');
  });

  test('@revoked refuses the key even when it is also listed; @cert-authority lines are not host keys', () => {
    const entries = parseKnownHosts(`${line('*', key, '@revoked')}\n${line('[10.1.2.3]:2222', key)}\n${line('*', other, '@cert-authority')}`);
    expect(verifyHostKey(entries, where, key)).toMatchObject({ ok: false, reason: expect.stringContaining('@revoked') });
    expect(verifyHostKey(entries, where, other).ok).toBe(false);
  });

  test('host key algorithms: the known types of the host come first, rsa as its sha2 variants', () => {
    const entries = parseKnownHosts(`${line('[10.1.2.3]:2222', blob('ssh-rsa'))}\n${line('other', blob('ecdsa-sha2-nistp256'))}`);
    expect(preferredAlgorithms(entries, '10.1.2.3', 2222).slice(0, 4)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519']);
    expect(preferredAlgorithms([], 'h', 22)[0]).toBe('ssh-ed25519');
  });

  test('fingerprints are printed as ssh prints them (SHA256, base64 without padding)', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const b = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), raw]);
    expect(fingerprint(b)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});
