/**
 * The credentials configuration can name before full authentication exists: a static API token
 * (Bearer) and a basic-auth user (SPEC 5.1). Compared in constant time.
 */
import { sameSecret as same } from './digest.js';

export interface StaticCredentials {
  token?: string;
  basic?: { username: string; password: string };
}


export const hasCredentials = (c: StaticCredentials): boolean => Boolean(c.token || c.basic);

/** Whether an Authorization header carries one of the configured credentials. */
export function matchesCredentials(header: string | undefined, c: StaticCredentials): boolean {
  const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  const [, scheme, value] = m as unknown as [string, string, string];
  if (scheme.toLowerCase() === 'bearer') return c.token !== undefined && same(value, c.token);
  if (!c.basic) return false;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // Both halves always compared: no early exit reveals which one was wrong.
  const user = same(decoded.slice(0, colon), c.basic.username);
  const pass = same(decoded.slice(colon + 1), c.basic.password);
  return user && pass;
}
