/**
 * Authentication settings (SPEC 5.2, 5.4), read from the environment and the config file like the rest of
 * the configuration and validated at start-up: a bad setting stops the server with a clear message.
 */
import { parseDurationMs } from '../core/spec/blocks.js';
import { at, bool, ConfigError as Problem, text } from './values.js';
import { isRole, isValidUsername, MIN_PASSWORD_LENGTH, type Role } from '../core/auth/roles.js';

export type AuthMode = 'none' | 'builtin' | 'oidc';

export interface RoleMappingConfig {
  defaultRole: Role;
  groupsClaim: string;
  groupMappings: Record<string, Role>;
  roleAttributePath?: string;
  roleAttributeStrict: boolean;
  skipOrgRoleSync: boolean;
}

export interface OidcConfig {
  clientId: string;
  clientSecret: string;
  /** Base URL of this service as the browser sees it (no trailing slash); the callback is {clientUrl}/oidc-callback. */
  clientUrl: string;
  issuer: string;
  scopes: string[];
  autoSignup: boolean;
  allowedDomains: string[];
  whitelist: string[];
  buttonLabel: string;
  roleMapping: RoleMappingConfig;
}

export interface AuthConfig {
  mode: AuthMode;
  admin: { username: string; password?: string };
  /** JWT signing secret (required, at least 32 characters, in builtin and oidc modes). */
  tokenSecret?: string;
  tokenTtlMs: number;
  oidc?: OidcConfig;
  /** OIDC settings that were partly given (a warning at start-up names the missing ones). */
  oidcMissing?: string[];
}

export const MIN_TOKEN_SECRET_LENGTH = 32;

type Env = NodeJS.ProcessEnv;
type File = Partial<Record<string, unknown>>;


/** A list given as a YAML list or a comma-separated string. */
function strings(name: string, v: unknown, fallback: string[] = []): string[] {
  if (v === undefined || v === '') return fallback;
  const items = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : undefined;
  if (!items || items.some((x) => typeof x !== 'string')) throw new Problem(`${name} must be a list of strings or a comma-separated string`);
  return (items as string[]).map((x) => x.trim()).filter((x) => x !== '');
}

function role(name: string, v: unknown, fallback: Role): Role {
  if (v === undefined || v === '') return fallback;
  if (!isRole(v)) throw new Problem(`${name}: "${String(v)}" is not a role (admin, manager, operator, viewer)`);
  return v;
}

function url(name: string, v: string): string {
  if (!/^https?:\/\/[^/]/.test(v)) throw new Problem(`${name}: "${v}" must be an http(s) URL`);
  return v.replace(/\/+$/, '');
}

/** Go-style durations only (SPEC 5.2): ns, us, µs, ms, s, m, h, combinable; no days or weeks. */
function ttl(v: string | undefined): number {
  if (v === undefined) return 24 * 3600_000;
  const ms = parseDurationMs(v);
  if (ms === undefined || ms <= 0) {
    throw new Problem(`SVC_AUTH_TOKEN_TTL: "${v}" is not a duration like 30m, 24h or 1h30m (units ns, us, ms, s, m, h; days and weeks are not supported)`);
  }
  return ms;
}

function roleMapping(env: Env, file: File): RoleMappingConfig {
  const m = (k: string) => at(file, `auth.oidc.roleMapping.${k}`);
  const raw = m('groupMappings') ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Problem('auth.oidc.roleMapping.groupMappings must be a map of group to role');
  const groupMappings: Record<string, Role> = {};
  for (const [g, r] of Object.entries(raw)) groupMappings[g] = role(`auth.oidc.roleMapping.groupMappings.${g}`, r, 'viewer');
  const path = text(m('roleAttributePath'));
  return {
    defaultRole: role('SVC_AUTH_OIDC_DEFAULT_ROLE', text(env.SVC_AUTH_OIDC_DEFAULT_ROLE) ?? m('defaultRole'), 'viewer'),
    groupsClaim: text(m('groupsClaim')) ?? 'groups',
    groupMappings,
    ...(path ? { roleAttributePath: path } : {}),
    roleAttributeStrict: bool('auth.oidc.roleMapping.roleAttributeStrict', m('roleAttributeStrict'), false),
    skipOrgRoleSync: bool('auth.oidc.roleMapping.skipOrgRoleSync', m('skipOrgRoleSync'), false),
  };
}

const OIDC_REQUIRED = [['clientId', 'CLIENT_ID'], ['clientSecret', 'CLIENT_SECRET'], ['clientUrl', 'CLIENT_URL'], ['issuer', 'ISSUER']] as const;

function oidc(env: Env, file: File): Pick<AuthConfig, 'oidc' | 'oidcMissing'> {
  const get = (key: string, envSuffix: string): unknown => text(env[`SVC_AUTH_OIDC_${envSuffix}`]) ?? at(file, `auth.oidc.${key}`);
  const given = OIDC_REQUIRED.map(([k, e]) => [k, text(get(k, e))] as const);
  const missing = OIDC_REQUIRED.filter((_r, i) => given[i]?.[1] === undefined).map(([k, e]) => `${k} (SVC_AUTH_OIDC_${e})`);
  if (missing.length === OIDC_REQUIRED.length) return {};
  if (missing.length > 0) return { oidcMissing: missing };
  const v = Object.fromEntries(given) as Record<(typeof OIDC_REQUIRED)[number][0], string>;
  const scopes = strings('auth.oidc.scopes', get('scopes', 'SCOPES'), ['openid', 'profile', 'email']);
  if (!scopes.includes('openid')) throw new Problem('auth.oidc.scopes must include openid');
  return { oidc: {
    clientId: v.clientId, clientSecret: v.clientSecret, clientUrl: url('SVC_AUTH_OIDC_CLIENT_URL', v.clientUrl), issuer: url('SVC_AUTH_OIDC_ISSUER', v.issuer),
    scopes, autoSignup: bool('SVC_AUTH_OIDC_AUTO_SIGNUP', get('autoSignup', 'AUTO_SIGNUP'), true),
    allowedDomains: strings('SVC_AUTH_OIDC_ALLOWED_DOMAINS', get('allowedDomains', 'ALLOWED_DOMAINS')).map((d) => d.toLowerCase().replace(/^@/, '')),
    whitelist: strings('SVC_AUTH_OIDC_WHITELIST', get('whitelist', 'WHITELIST')).map((e) => e.toLowerCase()),
    buttonLabel: text(get('buttonLabel', 'BUTTON_LABEL')) ?? 'Login with SSO',
    roleMapping: roleMapping(env, file),
  } };
}

function mode(v: string | undefined): AuthMode {
  const m = v ?? 'none';
  if (m !== 'none' && m !== 'builtin' && m !== 'oidc') throw new Problem(`SVC_AUTH_MODE: "${m}" must be none, builtin or oidc`);
  return m;
}

function admin(env: Env, file: File): AuthConfig['admin'] {
  const username = text(env.SVC_AUTH_ADMIN_USERNAME) ?? text(at(file, 'auth.builtin.admin.username')) ?? 'admin';
  const password = text(env.SVC_AUTH_ADMIN_PASSWORD) ?? text(at(file, 'auth.builtin.admin.password'));
  if (!isValidUsername(username)) throw new Problem(`SVC_AUTH_ADMIN_USERNAME: "${username}" is not a valid username (letters, digits, _ . @ -; at most 64)`);
  if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) throw new Problem(`SVC_AUTH_ADMIN_PASSWORD must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return { username, ...(password !== undefined ? { password } : {}) };
}

function secret(m: AuthMode, v: string | undefined): string | undefined {
  if (m === 'none') return v;
  if (v === undefined) throw new Problem(`SVC_AUTH_TOKEN_SECRET is required when SVC_AUTH_MODE=${m}: set at least ${MIN_TOKEN_SECRET_LENGTH} random characters (for example: openssl rand -base64 48)`);
  if (v.length < MIN_TOKEN_SECRET_LENGTH) throw new Problem(`SVC_AUTH_TOKEN_SECRET is too short (${v.length} characters): use at least ${MIN_TOKEN_SECRET_LENGTH} random characters`);
  return v;
}

/** The authentication settings; throws `fail(message)` (the caller's ConfigError) on a bad value. */
export function loadAuthConfig(env: Env, file: File, fail: (message: string) => Error): AuthConfig {
  try {
    const m = mode(text(env.SVC_AUTH_MODE) ?? text(at(file, 'auth.mode')));
    const tokenSecret = secret(m, text(env.SVC_AUTH_TOKEN_SECRET) ?? text(at(file, 'auth.builtin.token.secret')));
    const o = oidc(env, file);
    if (m === 'oidc' && !o.oidc) throw new Problem(`SVC_AUTH_MODE=oidc needs the OIDC settings clientId, clientSecret, clientUrl and issuer${o.oidcMissing ? `; missing: ${o.oidcMissing.join(', ')}` : ''}`);
    return {
      mode: m, admin: admin(env, file), ...(tokenSecret ? { tokenSecret } : {}),
      tokenTtlMs: ttl(text(env.SVC_AUTH_TOKEN_TTL) ?? text(at(file, 'auth.builtin.token.ttl'))), ...o,
    };
  } catch (e) {
    if (e instanceof Problem) throw fail(e.message);
    throw e;
  }
}

/** SVC_AUDIT_ENABLED (file `audit.enabled`), default true. */
export function loadAuditEnabled(env: Env, file: File, fail: (message: string) => Error): boolean {
  try {
    return bool('SVC_AUDIT_ENABLED', text(env.SVC_AUDIT_ENABLED) ?? at(file, 'audit.enabled'), true);
  } catch (e) {
    throw fail((e as Error).message);
  }
}

/** SVC_AUDIT_SINK (audit.sink): `file` (default; <dataDir>/audit) or `stdout` (JSON lines a cluster's log collector keeps). */
export function loadAuditSink(env: Env, file: File, fail: (message: string) => Error): 'file' | 'stdout' {
  const v = text(env.SVC_AUDIT_SINK) ?? at(file, 'audit.sink');
  if (v === undefined || v === '') return 'file';
  if (v === 'file' || v === 'stdout') return v;
  throw fail(`SVC_AUDIT_SINK: "${String(v)}" must be file or stdout`);
}
