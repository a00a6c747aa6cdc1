/**
 * Password hashing with scrypt (node:crypto, async: the work runs on the libuv thread pool, never on the
 * event loop). Stored as `scrypt$N$r$p$salt$hash` (base64url), so the cost can be raised later without
 * invalidating existing hashes. Verification compares in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams { N: number; r: number; p: number }

/** 32 MiB and ~50-100 ms per hash on one core: slow for a guesser, fine for a login. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, { N, r, p }: ScryptParams): Promise<Buffer> {
  const opts: ScryptOptions = { N, r, p, maxmem: 256 * N * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || N > 2 ** 20 || r > 32 || p > 16) return undefined;
  return { params: { N, r, p }, salt: Buffer.from(parts[4] as string, 'base64url'), key: Buffer.from(parts[5] as string, 'base64url') };
}

let dummy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored`. An empty or malformed hash (a user without a local password,
 * or no user at all: pass '') is false after the same work as a real verification, so response times
 * do not reveal which usernames exist or which accounts have a password.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const h = parse(stored);
  if (h && h.key.length > 0) return matches(password, h);
  dummy ??= hashPassword(randomBytes(12).toString('hex'));
  await matches(password, parse(await dummy)!);
  return false;
}

async function matches(password: string, h: NonNullable<ReturnType<typeof parse>>): Promise<boolean> {
  const key = await derive(password, h.salt, h.params);
  return key.length === h.key.length && timingSafeEqual(key, h.key);
}
