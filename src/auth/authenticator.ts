/**
 * Turns the Authorization header into a Principal (SPEC 5.1). Order: a webhook token (`svc_wh_`) is
 * refused (it only opens POST /webhooks/{fileName}, checked by that route); the static token; an API
 * key (`svc_`, builtin mode); a JWT (builtin mode). Basic credentials count outside builtin mode only;
 * under builtin they are ignored with a warning. Every comparison of a secret is constant-time. An API
 * key counts only while its creator is an enabled user, with at most that user's role (api-key-creator.ts).
 */
import type { AuthMode } from '../config/auth-config.js';
import type { Role } from '../core/auth/roles.js';
import type { UserStore } from '../core/ports/auth-stores.js';
import type { ApiKeyService } from './api-keys.js';
import { API_KEY_PREFIX } from './api-keys.js';
import { keyStanding } from './api-key-creator.js';
import type { Principal } from './principal.js';
import { hasCredentials, matchesCredentials, type StaticCredentials } from './static-credentials.js';
import type { TokenIssuer } from './tokens.js';
import { WEBHOOK_TOKEN_PREFIX } from './webhook-tokens.js';

export type AuthOutcome = { principal: Principal } | { problem: string };

export interface AuthenticatorDeps {
  mode: AuthMode;
  statics: StaticCredentials;
  tokens?: TokenIssuer;
  users?: UserStore;
  apiKeys?: ApiKeyService;
  warn(msg: string, f?: Record<string, unknown>): void;
}

const BASIC_WARN_EVERY_MS = 60_000;

export class Authenticator {
  private lastBasicWarning = 0;

  constructor(private readonly d: AuthenticatorDeps) {}

  get builtin(): boolean {
    return this.d.mode !== 'none';
  }

  /** Whether anything is checked at all: builtin mode, or static credentials configured in mode none. */
  get enforcing(): boolean {
    return this.builtin || hasCredentials(this.d.statics);
  }

  /** undefined when the request carries no credentials at all. */
  async authenticate(header: string | undefined): Promise<AuthOutcome | undefined> {
    const m = /^(\S+)\s+(\S+)\s*$/.exec(header?.trim() ?? '');
    if (!header?.trim()) return undefined;
    const scheme = m?.[1]?.toLowerCase();
    const value = m?.[2] ?? '';
    if (scheme === 'basic') return this.basic(header);
    if (scheme !== 'bearer') return { problem: 'unsupported Authorization header: use "Bearer <token>"' };
    if (value.startsWith(WEBHOOK_TOKEN_PREFIX)) return { problem: 'a webhook token is valid only for POST /webhooks/{fileName}' };
    if (this.d.statics.token && matchesCredentials(`Bearer ${value}`, { token: this.d.statics.token })) {
      return { principal: { kind: 'static', role: 'admin', id: 'static', name: 'static-token' } };
    }
    if (!this.builtin) return { problem: 'invalid token' };
    if (value.startsWith(API_KEY_PREFIX)) return this.apiKey(value);
    return this.jwt(value);
  }

  /**
   * The role a principal holds now, or undefined when it holds none any more (a user deleted or disabled,
   * an API key deleted or its creator gone): for what outlives one request, such as a terminal session.
   */
  async currentRole(p: Principal): Promise<Role | undefined> {
    if (p.kind === 'static' || p.kind === 'basic') return p.role;
    if (p.kind === 'user') {
      const user = await this.d.users?.get(p.id);
      return user && !user.isDisabled ? user.role : undefined;
    }
    const found = await this.d.apiKeys?.stored(p.id);
    if (!found) return undefined;
    const standing = await keyStanding(found.key, found.all, async (id) => this.d.users?.get(id));
    return 'role' in standing ? standing.role : undefined;
  }

  private basic(header: string): AuthOutcome {
    if (this.builtin) {
      if (Date.now() - this.lastBasicWarning > BASIC_WARN_EVERY_MS) {
        this.lastBasicWarning = Date.now();
        this.d.warn('Ignored basic authentication: it is disabled in builtin mode; use a bearer token (JWT, API key or static token)');
      }
      return { problem: 'basic authentication is disabled in builtin mode: use a bearer token' };
    }
    if (this.d.statics.basic && matchesCredentials(header, { basic: this.d.statics.basic })) {
      return { principal: { kind: 'basic', role: 'admin', id: 'basic', name: 'basic' } };
    }
    return { problem: 'invalid username or password' };
  }

  private async apiKey(value: string): Promise<AuthOutcome> {
    const found = await this.d.apiKeys?.authenticate(value);
    if (!found) return { problem: 'invalid API key' };
    const { key, all } = found;
    const standing = await keyStanding(key, all, async (id) => this.d.users?.get(id));
    if ('problem' in standing) return standing;
    return { principal: { kind: 'apikey', role: standing.role, id: key.id, name: key.name } };
  }

  private async jwt(value: string): Promise<AuthOutcome> {
    const claims = await this.d.tokens?.verify(value);
    if (!claims) return { problem: 'invalid or expired token' };
    const user = await this.d.users?.get(claims.userId);
    if (!user) return { problem: 'the user of this token no longer exists' };
    if (user.isDisabled) return { problem: 'this account is disabled' };
    if (user.tokenVersion !== claims.version) return { problem: 'this token was revoked by a password change' };
    return { principal: { kind: 'user', role: user.role, id: user.id, name: user.username } };
  }
}
