/**
 * Host key checking against an OpenSSH known_hosts file (strictHostKey). Supported: host lists with
 * `*`/`?` wildcards and `!` negation, `[host]:port` names for ports other than 22, hashed names
 * (`|1|salt|hash`, HMAC-SHA1 of the name), and `@revoked` keys. `@cert-authority` lines are skipped
 * (host certificates are not supported), so a host known only through a CA is an unknown host.
 */
import { createHash, createHmac } from 'node:crypto';

export interface KnownHost {
  line: number;
  marker?: 'revoked' | 'cert-authority';
  /** Host patterns, or the salt and hash of a hashed name. */
  hosts: string[] | { salt: Buffer; hash: Buffer };
  keyType: string;
  /** The public key blob (SSH wire format), as the server sends it. */
  key: Buffer;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

/** The entries of a known_hosts file; malformed lines are skipped, as ssh does. */
export function parseKnownHosts(text: string): KnownHost[] {
  const out: KnownHost[] = [];
  text.split('\n').forEach((raw, i) => {
    const fields = raw.trim().split(/\s+/);
    if (fields[0] === undefined || fields[0] === '' || fields[0].startsWith('#')) return;
    const marker = fields[0] === '@revoked' ? 'revoked' : fields[0] === '@cert-authority' ? 'cert-authority' : undefined;
    if (marker) fields.shift();
    const [hostField, keyType, keyText] = fields;
    if (!hostField || !keyType || !keyText) return;
    const hosts = hostField.startsWith('|1|') ? hashed(hostField) : hostField.split(',');
    if (!hosts) return;
    out.push({ line: i + 1, ...(marker ? { marker } : {}), hosts, keyType, key: Buffer.from(keyText, 'base64') });
  });
  return out;
}

function hashed(field: string): { salt: Buffer; hash: Buffer } | undefined {
  const [, , salt, hash] = field.split('|');
  if (!salt || !hash) return undefined;
  return { salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

/** The name a host is known by: `host` on port 22, `[host]:port` otherwise (as ssh writes them). */
export function knownName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function glob(pattern: string, name: string): boolean {
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i').test(name);
}

/** Whether an entry names `name`: a hashed name by its HMAC, else a positive pattern and no negated one. */
export function matches(entry: KnownHost, name: string): boolean {
  if (!Array.isArray(entry.hosts)) {
    return createHmac('sha1', entry.hosts.salt).update(name).digest().equals(entry.hosts.hash);
  }
  let hit = false;
  for (const p of entry.hosts) {
    if (p.startsWith('!')) {
      if (glob(p.slice(1), name)) return false;
    } else if (glob(p, name)) hit = true;
  }
  return hit;
}

/** The key type named inside a key blob (its first SSH string). */
export function blobType(key: Buffer): string {
  if (key.length < 4) return 'unknown';
  const len = key.readUInt32BE(0);
  return key.subarray(4, 4 + len).toString('latin1');
}

/** `SHA256:...`, as ssh prints fingerprints. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** Whether the server's key is the one the file knows for `host:port`, and why not. */
export function verifyHostKey(entries: KnownHost[], where: { host: string; port: number; file: string }, key: Buffer): Verdict {
  const name = knownName(where.host, where.port);
  const endpoint = where.port === 22 ? where.host : `${where.host}:${where.port}`;
  const mine = entries.filter((e) => e.marker !== 'cert-authority' && matches(e, name));
  const offered = `${blobType(key)} ${fingerprint(key)}`;
  if (mine.some((e) => e.marker === 'revoked' && e.key.equals(key))) {
    return { ok: false, reason: `the host key of ${endpoint} (${offered}) is marked @revoked in ${where.file}` };
  }
  const known = mine.filter((e) => e.marker === undefined);
  if (known.some((e) => e.key.equals(key))) return { ok: true };
  const sameType = known.filter((e) => e.keyType === blobType(key));
  if (sameType.length > 0) {
    return { ok: false, reason: `host key mismatch for ${endpoint}: the server offers ${offered}, which is not the key ${where.file} (line ${sameType.map((e) => e.line).join(', ')}) has for it; the host key has changed or this is another host (if the change is expected, replace that line)` };
  }
  const others = known.length > 0 ? ` (the file knows only ${[...new Set(known.map((e) => e.keyType))].join(', ')} keys for it)` : '';
  return { ok: false, reason: `host key of ${endpoint} is unknown: ${where.file} has no ${blobType(key)} key for ${name}${others}; add it (ssh-keyscan -p ${where.port} ${where.host} >> ${where.file}) or set strictHostKey: false` };
}

const ALGORITHMS_OF: Record<string, string[]> = { 'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] };
/** ssh2's default host key algorithms, in its order. */
const DEFAULT_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];

/**
 * Host key algorithms with the types the file knows for the host first: a server with several host keys
 * then shows the one the file can check (as ssh does), not a new one reported as unknown.
 */
export function preferredAlgorithms(entries: KnownHost[], host: string, port: number): string[] {
  const name = knownName(host, port);
  const first = entries.filter((e) => e.marker === undefined && matches(e, name))
    .flatMap((e) => ALGORITHMS_OF[e.keyType] ?? [e.keyType])
    .filter((a) => DEFAULT_ALGORITHMS.includes(a));
  return [...new Set([...first, ...DEFAULT_ALGORITHMS])];
}
