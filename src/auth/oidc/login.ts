/**
 * OIDC login under builtin mode (SPEC 5.4) with openid-client: authorization code flow with PKCE, state
 * and nonce; the provider's claims (ID token, completed by userinfo) decide access and role; success
 * yields a service JWT. Pending logins live in memory for 10 minutes (bounded), single use.
 */
import { randomBytes } from 'node:crypto';
import { sameSecret as same } from '../digest.js';
import * as client from 'openid-client';
import type { OidcConfig } from '../../config/auth-config.js';
import { isValidUsername, type Role } from '../../core/auth/roles.js';
import type { StoredUser, UserStore } from '../../core/ports/auth-stores.js';
import type { Auditor } from '../audit.js';
import type { LoginResult, LoginService } from '../login.js';
import type { UserService } from '../users.js';
import { emailAllowed, mapRole } from './mapping.js';

const PENDING_TTL_MS = 10 * 60_000;
const MAX_PENDING = 1000;

/** A refused login; the message is safe to show the user. */
export class OidcDenied extends Error {}

interface Pending { verifier: string; nonce: string; at: number }
type Claims = Record<string, unknown>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface OidcDeps {
  config: OidcConfig;
  users: UserService;
  store: UserStore;
  sessions: LoginService;
  audit: Auditor;
  now?: () => number;
}

export class OidcLogin {
  private discovered?: Promise<client.Configuration>;
  private readonly pending = new Map<string, Pending>();
  private readonly now: () => number;

  constructor(private readonly d: OidcDeps) {
    this.now = d.now ?? Date.now;
  }

  get redirectUri(): string {
    return `${this.d.config.clientUrl}/oidc-callback`;
  }

  /** The provider's authorization URL and the state to bind to the browser (a cookie). */
  async begin(): Promise<{ url: string; state: string }> {
    const cfg = await this.provider();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    this.remember(state, { verifier, nonce, at: this.now() });
    const url = client.buildAuthorizationUrl(cfg, {
      redirect_uri: this.redirectUri, scope: this.d.config.scopes.join(' '), state, nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
    });
    return { url: url.href, state };
  }

  /** Completes a login from the callback's query; throws OidcDenied with a presentable reason. */
  async complete(query: URLSearchParams, browserState: string | undefined, source: string | undefined): Promise<LoginResult> {
    let who = 'unknown';
    try {
      const claims = await this.claims(query, browserState);
      who = typeof claims.email === 'string' ? claims.email : String(claims.sub);
      const user = await this.user(claims);
      const result = await this.d.sessions.session(user);
      await this.d.audit.record({ actor: user.username, action: 'auth.login', target: user.username, source, outcome: 'success', details: { method: 'oidc', role: user.role } });
      return result;
    } catch (e) {
      const reason = e instanceof OidcDenied ? e.message : `the identity provider's answer was not accepted (${e instanceof Error ? e.message : String(e)})`;
      await this.d.audit.record({ actor: who, action: 'auth.login', target: who, source, outcome: 'failure', details: { method: 'oidc', reason } });
      throw new OidcDenied(reason);
    }
  }

  private async claims(query: URLSearchParams, browserState: string | undefined): Promise<Claims> {
    const error = query.get('error');
    if (error) throw new OidcDenied(`the identity provider refused the login: ${error}${query.get('error_description') ? ` (${query.get('error_description')})` : ''}`);
    const state = query.get('state') ?? '';
    const p = this.pending.get(state);
    this.pending.delete(state);
    if (!p || this.now() - p.at > PENDING_TTL_MS) throw new OidcDenied('unknown or expired login: start again');
    if (!browserState || !same(browserState, state)) throw new OidcDenied('this login was started in another browser: start again');
    const cfg = await this.provider();
    const tokens = await client.authorizationCodeGrant(cfg, new URL(`${this.redirectUri}?${query.toString()}`), {
      pkceCodeVerifier: p.verifier, expectedState: state, expectedNonce: p.nonce, idTokenExpected: true,
    });
    const id = tokens.claims() as Claims;
    let info: Claims = {};
    if (tokens.access_token) info = await client.fetchUserInfo(cfg, tokens.access_token, String(id.sub)).catch(() => ({})) as Claims;
    return { ...info, ...id };
  }

  private async user(claims: Claims): Promise<StoredUser> {
    const c = this.d.config;
    const email = typeof claims.email === 'string' ? claims.email.toLowerCase() : undefined;
    // A provider that does not say the e-mail is verified has not verified it: no rule passes on it.
    const verified = claims.email_verified === true;
    const ruled = c.whitelist.length > 0 || c.allowedDomains.length > 0;
    if (ruled && (!verified || !emailAllowed(email, c))) throw new OidcDenied(`${email ?? 'a login without e-mail'} is not allowed to sign in`);
    const role = await mapRole(claims, c.roleMapping);
    if (!role) throw new OidcDenied('no role matches this account (roleAttributeStrict)');
    const identity = `${c.issuer}|${String(claims.sub)}`;
    // Linking an existing account by e-mail needs an e-mail the provider says is verified, and never takes over
    // an account already bound to another OIDC identity.
    const linkable = email && claims.email_verified === true ? await this.byEmail(email) : undefined;
    const existing = (await this.d.store.findByOidc(identity)) ?? (linkable && !linkable.oidcIdentity ? linkable : undefined);
    if (existing) {
      if (existing.isDisabled) throw new OidcDenied('this account is disabled');
      const sync: { oidcIdentity: string; email?: string; role?: Role } = { oidcIdentity: identity, ...(email ? { email } : {}) };
      if (!c.roleMapping.skipOrgRoleSync) sync.role = role;
      return this.d.users.syncOidc(existing.id, sync);
    }
    if (!c.autoSignup) throw new OidcDenied(`no account exists for ${email ?? String(claims.sub)} and sign-up is off: ask an admin`);
    return this.d.users.create({ username: await this.freeUsername(claims, email), role, oidcIdentity: identity, ...(email ? { email } : {}) });
  }

  private async byEmail(email: string): Promise<StoredUser | undefined> {
    return (await this.d.store.findByUsername(email)) ?? (await this.d.store.list()).find((u) => u.email === email);
  }

  private async freeUsername(claims: Claims, email: string | undefined): Promise<string> {
    const preferred = typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
    const base = [email, preferred].find((n) => n && isValidUsername(n)) ?? `oidc-${String(claims.sub).replace(/[^a-zA-Z0-9_.@-]/g, '').slice(0, 40)}`;
    if (!(await this.d.store.findByUsername(base))) return base;
    return `${base.slice(0, 56)}-${randomBytes(3).toString('hex')}`;
  }

  private remember(state: string, p: Pending): void {
    for (const [k, v] of this.pending) if (this.now() - v.at > PENDING_TTL_MS) this.pending.delete(k);
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    this.pending.set(state, p);
  }

  /** Discovery once, retried after a failure (the provider may start after us). */
  private provider(): Promise<client.Configuration> {
    const c = this.d.config;
    const issuer = new URL(c.issuer);
    const insecure = issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname);
    this.discovered ??= client.discovery(issuer, c.clientId, c.clientSecret, undefined, insecure ? { execute: [client.allowInsecureRequests] } : undefined)
      .catch((e: unknown) => {
        this.discovered = undefined;
        throw new OidcDenied(`the identity provider ${c.issuer} cannot be reached: ${e instanceof Error ? e.message : String(e)}`);
      });
    return this.discovered;
  }
}
