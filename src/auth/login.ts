/**
 * Password login (POST /auth/login): throttled per username (throttle.ts), constant work for unknown
 * users, audited. A disabled user cannot log in even with the right password.
 */
import { BadRequestError, DomainError } from '../core/errors.js';
import { MAX_PASSWORD_LENGTH, MAX_USERNAME_LENGTH } from '../core/auth/roles.js';
import type { StoredUser, UserStore } from '../core/ports/auth-stores.js';
import type { Auditor } from './audit.js';
import { verifyPassword } from './passwords.js';
import type { LoginThrottle } from './throttle.js';
import type { TokenIssuer } from './tokens.js';

export interface LoginResult {
  token: string;
  expiresAt: string;
  user: { id: string; username: string; role: StoredUser['role'] };
}

export class LoginService {
  constructor(
    private readonly users: UserStore,
    private readonly throttle: LoginThrottle,
    private readonly tokens: TokenIssuer,
    private readonly audit: Auditor,
  ) {}

  async login(body: unknown, source: string | undefined): Promise<LoginResult> {
    const { username, password } = credentials(body);
    const wait = this.throttle.retryAfterMs(username);
    if (wait > 0) {
      await this.audit.record({ actor: username, action: 'auth.login', target: username, source, outcome: 'failure', details: { reason: 'locked' } });
      throw tooMany(wait);
    }
    if (!this.throttle.acquire(username)) throw tooMany(1000);
    try {
      return await this.verify(username, password, source);
    } finally {
      this.throttle.release(username);
    }
  }

  private async verify(username: string, password: string, source: string | undefined): Promise<LoginResult> {
    const user = await this.users.findByUsername(username);
    const ok = await verifyPassword(password, user?.passwordHash ?? '');
    if (!ok || !user || user.isDisabled) {
      const reason = !user ? 'unknown user' : !ok ? 'wrong password' : 'disabled';
      const lock = reason === 'disabled' ? 0 : this.throttle.fail(username);
      await this.audit.record({ actor: username, action: 'auth.login', target: username, source, outcome: 'failure', details: { reason, ...(lock ? { lockedForSeconds: Math.ceil(lock / 1000) } : {}) } });
      throw new DomainError('unauthorized', reason === 'disabled' ? 'this account is disabled' : 'invalid username or password');
    }
    this.throttle.succeed(username);
    await this.audit.record({ actor: user.username, action: 'auth.login', target: user.username, source, outcome: 'success', details: { method: 'password' } });
    return this.session(user);
  }

  async session(user: StoredUser): Promise<LoginResult> {
    const { token, expiresAt } = await this.tokens.issue({ userId: user.id, version: user.tokenVersion });
    return { token, expiresAt, user: { id: user.id, username: user.username, role: user.role } };
  }
}

function credentials(body: unknown): { username: string; password: string } {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const { username, password } = b;
  if (typeof username !== 'string' || username === '' || typeof password !== 'string') {
    throw new BadRequestError('body must be {"username": string, "password": string}');
  }
  if (username.length > MAX_USERNAME_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new BadRequestError(`username (max ${MAX_USERNAME_LENGTH}) or password (max ${MAX_PASSWORD_LENGTH}) is too long`);
  }
  return { username, password };
}

export class TooManyAttemptsError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('too_many_requests', `too many failed logins for this user: try again in ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}

const tooMany = (ms: number) => new TooManyAttemptsError(Math.max(1, Math.ceil(ms / 1000)));
