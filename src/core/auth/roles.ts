/** Roles of SPEC 5.3, ordered: admin > manager > operator > viewer. Also the names rules of users and API keys. */

export const ROLES = ['viewer', 'operator', 'manager', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** Whether `role` grants at least what `min` grants. */
export const roleAtLeast = (role: Role, min: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(min);

/** The higher of two roles. */
export const higherRole = (a: Role, b: Role): Role => (roleAtLeast(a, b) ? a : b);

/** The lower of two roles. */
export const lowerRole = (a: Role, b: Role): Role => (roleAtLeast(a, b) ? b : a);

export const MIN_PASSWORD_LENGTH = 8;
/** Longer passwords are refused: hashing megabytes would be a cheap way to burn CPU. */
export const MAX_PASSWORD_LENGTH = 256;
export const MAX_USERNAME_LENGTH = 64;
/** Letters, digits and `_ . @ -` (OIDC users are named by their e-mail address). */
const USERNAME = /^[a-zA-Z0-9][a-zA-Z0-9_.@-]*$/;

export const isValidUsername = (v: unknown): v is string =>
  typeof v === 'string' && v.length <= MAX_USERNAME_LENGTH && USERNAME.test(v);

/** Why a password is unacceptable, or undefined. */
export function passwordProblem(v: unknown, field = 'password'): string | undefined {
  if (typeof v !== 'string') return `${field} must be a string`;
  if (v.length < MIN_PASSWORD_LENGTH) return `${field} must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (v.length > MAX_PASSWORD_LENGTH) return `${field} must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

export const API_KEY_NAME_MAX = 100;
export const API_KEY_DESCRIPTION_MAX = 500;
