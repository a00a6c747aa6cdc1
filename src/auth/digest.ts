/** SHA-256 digests and constant-time comparisons: how every secret is stored and compared. */
import { createHash, timingSafeEqual } from 'node:crypto';

export const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Two secrets are equal, in a time that tells neither where they differ nor their lengths. */
export const sameSecret = (a: string, b: string): boolean => timingSafeEqual(sha256(a), sha256(b));

/** Whether a digest equals a stored hex hash, in constant time (false for a malformed hash). */
export function matchesHash(digest: Buffer, hexHash: string): boolean {
  const stored = Buffer.from(hexHash, 'hex');
  return stored.length === digest.length && timingSafeEqual(stored, digest);
}
