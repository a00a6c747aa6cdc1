import { loadConfig, ConfigError } from './config.js';

const base = { HOME: '/tmp', SVC_DATA_DIR: '/tmp/svc-config-test' };
const builtin = { ...base, SVC_AUTH_MODE: 'builtin', SVC_AUTH_TOKEN_SECRET: 'x'.repeat(32) };

test('defaults: mode none, audit on, 24h tokens, admin "admin"', () => {
  const c = loadConfig(base);
  expect(c.auth).toEqual({ mode: 'none', admin: { username: 'admin' }, tokenTtlMs: 24 * 3600_000 });
  expect(c.auditEnabled).toBe(true);
});

test.each([
  [{ ...base, SVC_AUTH_MODE: 'ldap' }, 'none, builtin or oidc'],
  [{ ...base, SVC_AUTH_MODE: 'builtin' }, 'SVC_AUTH_TOKEN_SECRET is required'],
  [{ ...builtin, SVC_AUTH_TOKEN_SECRET: 'short-secret' }, 'too short'],
  [{ ...builtin, SVC_AUTH_TOKEN_TTL: '1d' }, 'days and weeks'],
  [{ ...builtin, SVC_AUTH_TOKEN_TTL: '2w' }, 'days and weeks'],
  [{ ...builtin, SVC_AUTH_TOKEN_TTL: '0s' }, 'SVC_AUTH_TOKEN_TTL'],
  [{ ...builtin, SVC_AUTH_TOKEN_TTL: 'soon' }, 'SVC_AUTH_TOKEN_TTL'],
  [{ ...builtin, SVC_AUTH_ADMIN_PASSWORD: 'short' }, 'at least 8'],
  [{ ...builtin, SVC_AUTH_ADMIN_USERNAME: '../root' }, 'not a valid username'],
  [{ ...base, SVC_AUDIT_ENABLED: 'maybe' }, 'true or false'],
  [{ ...base, SVC_AUDIT_SINK: 'syslog' }, 'SVC_AUDIT_SINK: "syslog" must be file or stdout'],
  [{ ...builtin, SVC_AUTH_MODE: 'oidc' }, 'needs the OIDC settings'],
  [{ ...builtin, SVC_AUTH_OIDC_CLIENT_ID: 'a', SVC_AUTH_OIDC_CLIENT_SECRET: 'b', SVC_AUTH_OIDC_CLIENT_URL: 'ftp://x', SVC_AUTH_OIDC_ISSUER: 'https://idp' }, 'http(s) URL'],
  [{ ...builtin, SVC_AUTH_OIDC_CLIENT_ID: 'a', SVC_AUTH_OIDC_CLIENT_SECRET: 'b', SVC_AUTH_OIDC_CLIENT_URL: 'http://x', SVC_AUTH_OIDC_ISSUER: 'https://idp', SVC_AUTH_OIDC_DEFAULT_ROLE: 'root' }, 'not a role'],
  [{ ...builtin, SVC_AUTH_OIDC_CLIENT_ID: 'a', SVC_AUTH_OIDC_CLIENT_SECRET: 'b', SVC_AUTH_OIDC_CLIENT_URL: 'http://x', SVC_AUTH_OIDC_ISSUER: 'https://idp', SVC_AUTH_OIDC_SCOPES: 'email,profile' }, 'include openid'],
  [{ ...builtin, SVC_AUTH_OIDC_CLIENT_ID: 'a', SVC_AUTH_OIDC_CLIENT_SECRET: 'b', SVC_AUTH_OIDC_CLIENT_URL: 'http://x', SVC_AUTH_OIDC_ISSUER: 'https://idp', SVC_AUTH_OIDC_AUTO_SIGNUP: 'yes' }, 'true or false'],
])('%j fails with a clear message', (env, text) => {
  expect(() => loadConfig(env)).toThrow(ConfigError);
  expect(() => loadConfig(env)).toThrow(text);
});

test('Go durations: 1h30m, 90s, 1500ms, 2h45m30s', () => {
  for (const [ttl, ms] of [['1h30m', 5_400_000], ['90s', 90_000], ['1500ms', 1500], ['2h45m30s', 9_930_000], ['1000000us', 1000], ['1000000µs', 1000]] as const) {
    expect(loadConfig({ ...builtin, SVC_AUTH_TOKEN_TTL: ttl }).auth.tokenTtlMs).toBe(ms);
  }
});

test('OIDC from the environment: lists, booleans and defaults of SPEC 5.4', () => {
  const c = loadConfig({
    ...builtin, SVC_AUTH_OIDC_CLIENT_ID: 'id', SVC_AUTH_OIDC_CLIENT_SECRET: 'secret', SVC_AUTH_OIDC_CLIENT_URL: 'https://svc.example.com/',
    SVC_AUTH_OIDC_ISSUER: 'https://idp.example.com', SVC_AUTH_OIDC_ALLOWED_DOMAINS: 'Example.com, @corp.io', SVC_AUTH_OIDC_WHITELIST: 'Boss@Else.org',
    SVC_AUTH_OIDC_AUTO_SIGNUP: 'false', SVC_AUTH_OIDC_DEFAULT_ROLE: 'operator',
  });
  expect(c.auth.oidc).toEqual({
    clientId: 'id', clientSecret: 'secret', clientUrl: 'https://svc.example.com', issuer: 'https://idp.example.com',
    scopes: ['openid', 'profile', 'email'], autoSignup: false, allowedDomains: ['example.com', 'corp.io'], whitelist: ['boss@else.org'],
    buttonLabel: 'Login with SSO',
    roleMapping: { defaultRole: 'operator', groupsClaim: 'groups', groupMappings: {}, roleAttributeStrict: false, skipOrgRoleSync: false },
  });
});

test('partial OIDC settings leave OIDC off and name what is missing', () => {
  const c = loadConfig({ ...builtin, SVC_AUTH_OIDC_CLIENT_ID: 'id', SVC_AUTH_OIDC_ISSUER: 'https://idp' });
  expect(c.auth.oidc).toBeUndefined();
  expect(c.auth.oidcMissing).toEqual(['clientSecret (SVC_AUTH_OIDC_CLIENT_SECRET)', 'clientUrl (SVC_AUTH_OIDC_CLIENT_URL)']);
});
