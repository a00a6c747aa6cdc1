/**
 * Webhook tokens (SPEC 5.1): `svc_wh_<random>`, 256 bits of randomness. Only the SHA-256 of a token is
 * kept; verification compares hashes in constant time, so neither timing nor storage reveals a token.
 */
import { randomBytes } from 'node:crypto';
import { matchesHash, sha256 } from './digest.js';

export const WEBHOOK_TOKEN_PREFIX = 'svc_wh_';
/** Characters of the token kept in clear (`svc_wh_` plus 5 random characters). */
const SHOWN = WEBHOOK_TOKEN_PREFIX.length + 5;

export interface NewToken {
  token: string;
  tokenHash: string;
  tokenPrefix: string;
}

export const hashToken = (token: string): string => sha256(token).toString('hex');

export function newWebhookToken(): NewToken {
  const token = `${WEBHOOK_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, tokenHash: hashToken(token), tokenPrefix: token.slice(0, SHOWN) };
}

/** Whether `token` hashes to `tokenHash`, compared in constant time. */
export const verifyWebhookToken = (token: string, tokenHash: string): boolean => matchesHash(sha256(token), tokenHash);

/** The bearer credential of an Authorization header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}
