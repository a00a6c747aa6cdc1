/**
 * User management over the UserStore port (SPEC 4.2). Invariants: usernames unique (case-insensitive);
 * at least one enabled admin always remains; an admin cannot disable or delete their own account.
 * Passwords leave this module only as scrypt hashes.
 */
import { randomBytes } from 'node:crypto';
import { AlreadyExistsError, BadRequestError, DomainError, NotFoundError } from '../core/errors.js';
import { isRole, isValidUsername, passwordProblem, type Role } from '../core/auth/roles.js';
import type { StoredUser, UserStore } from '../core/ports/auth-stores.js';
import { hashPassword, verifyPassword } from './passwords.js';

/** The User record of SPEC 2.8 (plus timestamps and whether a local password is set). */
export interface PublicUser {
  id: string;
  username: string;
  role: Role;
  isDisabled: boolean;
  hasPassword: boolean;
  authProvider: 'local' | 'oidc';
  email?: string;
  createdAt: string;
  updatedAt: string;
}

export const publicUser = (u: StoredUser): PublicUser => ({
  id: u.id, username: u.username, role: u.role, isDisabled: u.isDisabled, hasPassword: u.passwordHash !== '',
  authProvider: u.oidcIdentity ? 'oidc' : 'local', ...(u.email ? { email: u.email } : {}), createdAt: u.createdAt, updatedAt: u.updatedAt,
});

export interface NewUser { username: string; password?: string; role: Role; email?: string; oidcIdentity?: string }

function checkPassword(v: unknown, field = 'password'): string {
  const problem = passwordProblem(v, field);
  if (problem) throw new BadRequestError(problem);
  return v as string;
}

const enabledAdmins = (all: StoredUser[]): number => all.filter((u) => u.role === 'admin' && !u.isDisabled).length;

function keepAnAdmin(before: StoredUser, after: StoredUser | undefined, all: StoredUser[]): void {
  const wasCounted = before.role === 'admin' && !before.isDisabled;
  const stillCounted = after !== undefined && after.role === 'admin' && !after.isDisabled;
  if (wasCounted && !stillCounted && enabledAdmins(all) <= 1) {
    throw new BadRequestError('this is the last enabled admin: make another user admin first');
  }
}

export class UserService {
  constructor(private readonly store: UserStore, private readonly now: () => number, private readonly newId: () => string) {}

  async list(): Promise<PublicUser[]> {
    return (await this.store.list()).map(publicUser);
  }

  async get(id: string): Promise<StoredUser> {
    const u = await this.store.get(id);
    if (!u) throw new NotFoundError(`user ${id} not found`, { userId: id });
    return u;
  }

  async create(input: NewUser): Promise<StoredUser> {
    if (!isValidUsername(input.username)) throw new BadRequestError('username must be 1-64 characters: letters, digits, "_", ".", "@" and "-", starting with a letter or digit');
    if (!isRole(input.role)) throw new BadRequestError('role must be one of admin, manager, operator, viewer');
    const passwordHash = input.password === undefined ? '' : await hashPassword(checkPassword(input.password));
    const at = this.iso();
    return this.store.create({
      id: this.newId(), username: input.username, role: input.role, isDisabled: false, passwordHash, tokenVersion: 1,
      ...(input.email ? { email: input.email } : {}), ...(input.oidcIdentity ? { oidcIdentity: input.oidcIdentity } : {}), createdAt: at, updatedAt: at,
    });
  }

  /** The first start with no users: the initial admin. Returns the generated password, if one was generated. */
  async ensureAdmin(username: string, password: string | undefined): Promise<{ created: boolean; generated?: string }> {
    if ((await this.store.list()).length > 0) return { created: false };
    const generated = password === undefined ? randomBytes(18).toString('base64url') : undefined;
    try {
      await this.create({ username, password: password ?? generated, role: 'admin' });
    } catch (e) {
      // Another replica starting at the same time created it first.
      if (e instanceof AlreadyExistsError) return { created: false };
      throw e;
    }
    return { created: true, ...(generated ? { generated } : {}) };
  }

  setRole(id: string, role: unknown): Promise<StoredUser> {
    if (!isRole(role)) throw new BadRequestError('role must be one of admin, manager, operator, viewer');
    return this.store.modify(id, (u, all) => {
      const next = { ...u, role, updatedAt: this.iso() };
      keepAnAdmin(u, next, all);
      return next;
    });
  }

  setDisabled(id: string, isDisabled: unknown, actorId: string): Promise<StoredUser> {
    if (typeof isDisabled !== 'boolean') throw new BadRequestError('body must be {"isDisabled": true|false}');
    if (isDisabled && id === actorId) throw new BadRequestError('you cannot disable your own account');
    return this.store.modify(id, (u, all) => {
      const next = { ...u, isDisabled, updatedAt: this.iso() };
      keepAnAdmin(u, next, all);
      return next;
    });
  }

  /** An admin sets a new password: the user's existing tokens stop working. */
  async resetPassword(id: string, password: unknown): Promise<StoredUser> {
    const passwordHash = await hashPassword(checkPassword(password, 'newPassword'));
    return this.store.modify(id, (u) => ({ ...u, passwordHash, tokenVersion: u.tokenVersion + 1, updatedAt: this.iso() }));
  }

  /** The user changes their own password (the current one is required when one is set). */
  async changePassword(id: string, current: unknown, next: unknown): Promise<StoredUser> {
    const newPassword = checkPassword(next, 'newPassword');
    const user = await this.get(id);
    if (user.passwordHash !== '') {
      if (typeof current !== 'string' || !(await verifyPassword(current, user.passwordHash))) {
        throw new DomainError('unauthorized', 'the current password is wrong');
      }
    }
    if (current === newPassword) throw new BadRequestError('newPassword must differ from the current password');
    return this.resetPassword(id, newPassword);
  }

  delete(id: string, actorId: string): Promise<void> {
    if (id === actorId) throw new BadRequestError('you cannot delete your own account');
    return this.store.delete(id, (u, all) => keepAnAdmin(u, undefined, all));
  }

  /** Updates of an OIDC login: identity link, e-mail and (unless skipOrgRoleSync) the role. */
  syncOidc(id: string, patch: { oidcIdentity: string; email?: string; role?: Role }): Promise<StoredUser> {
    return this.store.modify(id, (u, all) => {
      const next = { ...u, oidcIdentity: patch.oidcIdentity, ...(patch.email ? { email: patch.email } : {}), ...(patch.role ? { role: patch.role } : {}) };
      if (next.role !== u.role || next.email !== u.email || next.oidcIdentity !== u.oidcIdentity) next.updatedAt = this.iso();
      keepAnAdmin(u, next, all);
      return next;
    });
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
