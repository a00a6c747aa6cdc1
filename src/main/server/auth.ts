/**
 * Wiring of the authentication area (SPEC 5, 4.2, 4.6): mode, stores, credentials, the policy middleware
 * mounted before every other router, the auth routers, the OIDC callback and the legacy v1 404.
 * Mode none with no static credentials checks nothing (the default: nothing changes for local use).
 */
import type { Role } from '../../core/auth/roles.js';
import type { Principal } from '../../auth/principal.js';
import { randomUUID } from 'node:crypto';
import { FileAuditLog } from '../../adapters/auth/file-audit-log.js';
import { StreamAuditLog } from '../../adapters/auth/stream-audit-log.js';
import { RecordApiKeyStore } from '../../auth/stores/api-key-records.js';
import { RecordUserStore } from '../../auth/stores/user-records.js';
import { apiKeysRouter } from '../../api/auth/api-keys.js';
import { authGuard } from '../../api/auth/guard.js';
import { legacyRouter } from '../../api/auth/legacy.js';
import { oidcCallbackRouter, oidcRouter } from '../../api/auth/oidc.js';
import { sessionRouter } from '../../api/auth/session.js';
import { usersRouter } from '../../api/auth/users.js';
import { ApiKeyService } from '../../auth/api-keys.js';
import { Auditor } from '../../auth/audit.js';
import { Authenticator } from '../../auth/authenticator.js';
import { LoginService } from '../../auth/login.js';
import { OidcLogin } from '../../auth/oidc/login.js';
import { expressionProblem } from '../../auth/oidc/mapping.js';
import { Policy } from '../../auth/policy.js';
import type { StaticCredentials } from '../../auth/static-credentials.js';
import { LoginThrottle } from '../../auth/throttle.js';
import { TokenIssuer } from '../../auth/tokens.js';
import { UserService } from '../../auth/users.js';
import { ConfigError } from '../../config/config.js';
import type { AreaParts, ServerBase } from './base.js';

export interface AuthArea extends AreaParts {
  /** API keys held in memory (svc_cache_entries_total{cache="api_key"}). */
  apiKeyEntries(): number;
  /** The audit trail every area writes to. */
  audit: Auditor;
  /** Whether requests are authenticated at all (builtin mode, or static credentials). */
  enforcing: boolean;
  /** The role a principal holds now (undefined: none any more). */
  currentRole(p: Principal): Promise<Role | undefined>;
}

/** Where the generated admin password goes: standard output, once. */
export type Print = (line: string) => void;
const stdout: Print = (line) => void process.stdout.write(`${line}\n`);

interface Builtin {
  users: UserService;
  store: RecordUserStore;
  apiKeys: ApiKeyService;
  apiKeyStore: RecordApiKeyStore;
  tokens: TokenIssuer;
  login: LoginService;
  oidc?: OidcLogin;
}

async function builtin(base: ServerBase, audit: Auditor, print: Print): Promise<Builtin> {
  const { config } = base;
  const a = config.auth;
  const store = new RecordUserStore(base.backend.records.users);
  const users = new UserService(store, Date.now, randomUUID);
  const apiKeyStore = new RecordApiKeyStore(base.backend.records.apiKeys);
  const tokens = new TokenIssuer(a.tokenSecret as string, a.tokenTtlMs);
  const login = new LoginService(store, new LoginThrottle(), tokens, audit);
  const admin = await users.ensureAdmin(a.admin.username, a.admin.password);
  if (admin.created) {
    base.log.info('Created the initial admin user', { username: a.admin.username, passwordGenerated: Boolean(admin.generated) });
    await audit.record({ actor: 'system', action: 'user.create', target: a.admin.username, outcome: 'success', details: { role: 'admin', initial: true } });
  }
  if (admin.generated) {
    print(`svc: created the initial admin user "${a.admin.username}" with the generated password: ${admin.generated}`);
    print('svc: it is shown only this once; change it after logging in (POST /api/v2/auth/change-password).');
  }
  let oidc: OidcLogin | undefined;
  if (a.oidc) {
    const problem = a.oidc.roleMapping.roleAttributePath ? await expressionProblem(a.oidc.roleMapping.roleAttributePath) : undefined;
    if (problem) throw new ConfigError(`auth.oidc.roleMapping.roleAttributePath is not a valid jq expression: ${problem}`);
    oidc = new OidcLogin({ config: a.oidc, users, store, sessions: login, audit });
  }
  return { users, store, apiKeys: new ApiKeyService(apiKeyStore, Date.now, randomUUID), apiKeyStore, tokens, login, ...(oidc ? { oidc } : {}) };
}

function warnings(base: ServerBase): void {
  const { auth, authBasic } = base.config;
  if (auth.mode === 'none' && auth.oidc) base.log.warn('Ignored the OIDC settings: OIDC login needs SVC_AUTH_MODE=builtin');
  if (auth.oidcMissing) base.log.warn('OIDC login is off: some of its settings are missing', { missing: auth.oidcMissing });
  if (auth.mode !== 'none' && authBasic) base.log.warn('Ignored basic authentication settings: basic auth is disabled in builtin mode');
}

export async function wireAuth(base: ServerBase, print: Print = stdout): Promise<AuthArea> {
  const { config, log } = base;
  warnings(base);
  const sink = config.auditSink === 'stdout' ? new StreamAuditLog((line) => void process.stdout.write(line)) : FileAuditLog.under(config.dataDir);
  const audit = new Auditor(config.auditEnabled ? sink : undefined, (m, f) => log.warn(m, f));
  const b = config.auth.mode === 'none' ? undefined : await builtin(base, audit, print);
  const statics: StaticCredentials = { ...(config.authToken ? { token: config.authToken } : {}), ...(config.authBasic ? { basic: config.authBasic } : {}) };
  const authenticator = new Authenticator({
    mode: config.auth.mode, statics, warn: (m, f) => log.warn(m, f),
    ...(b ? { tokens: b.tokens, users: b.store, apiKeys: b.apiKeys } : {}),
  });
  const isBuiltin = b !== undefined;
  const oidcDeps = { ...(b?.oidc ? { oidc: b.oidc } : {}), clientUrl: config.auth.oidc?.clientUrl, buttonLabel: config.auth.oidc?.buttonLabel };
  return {
    before: [authGuard({ authenticator, policy: new Policy(), metrics: config.metrics, audit, basic: !isBuiltin && Boolean(statics.basic) })],
    routers: [
      sessionRouter({ builtin: isBuiltin, audit, ...(b ? { login: b.login, users: b.users } : {}) }),
      usersRouter({ builtin: isBuiltin, audit, ...(b ? { users: b.users } : {}) }),
      apiKeysRouter({ builtin: isBuiltin, audit, ...(b ? { apiKeys: b.apiKeys } : {}) }),
      oidcRouter(oidcDeps),
    ],
    rootRouters: [oidcCallbackRouter(oidcDeps), legacyRouter()],
    apiKeyEntries: () => b?.apiKeyStore.cacheSize() ?? 0,
    audit,
    enforcing: authenticator.enforcing,
    currentRole: (p) => authenticator.currentRole(p),
  };
}
