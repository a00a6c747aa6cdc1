/**
 * Service JWTs (SPEC 5.1): HS256 over the configured secret, signed and verified with jose. Claims: `sub`
 * (user id), `ver` (the user's token version: a password change or reset ends older tokens), `iss`,
 * `aud`, `iat`, `exp` (TTL of SVC_AUTH_TOKEN_TTL), `jti`. The role is not a claim: it is read from the user
 * store on every request, so a role change or a disabled account applies at once.
 */
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

export const JWT_ISSUER = 'svc';
export const JWT_AUDIENCE = 'svc-api';

export interface TokenClaims { userId: string; version: number }

export class TokenIssuer {
  private readonly key: Uint8Array;

  constructor(secret: string, readonly ttlMs: number, private readonly now: () => number = Date.now) {
    this.key = new TextEncoder().encode(secret);
  }

  async issue(c: TokenClaims): Promise<{ token: string; expiresAt: string }> {
    const iat = Math.floor(this.now() / 1000);
    const exp = iat + Math.max(1, Math.round(this.ttlMs / 1000));
    const token = await new SignJWT({ ver: c.version })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.userId).setIssuer(JWT_ISSUER).setAudience(JWT_AUDIENCE)
      .setIssuedAt(iat).setExpirationTime(exp).setJti(randomUUID())
      .sign(this.key);
    return { token, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** The claims of a valid, unexpired token signed with our secret, or undefined. */
  async verify(token: string): Promise<TokenClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'], issuer: JWT_ISSUER, audience: JWT_AUDIENCE, currentDate: new Date(this.now()), requiredClaims: ['sub', 'exp'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number') return undefined;
      return { userId: payload.sub, version: payload.ver };
    } catch {
      return undefined;
    }
  }
}
