import type { RoleMappingConfig } from '../../config/auth-config.js';
import { emailAllowed, expressionProblem, mapRole } from './mapping.js';

const m = (over: Partial<RoleMappingConfig> = {}): RoleMappingConfig => ({
  defaultRole: 'viewer', groupsClaim: 'groups', groupMappings: {}, roleAttributeStrict: false, skipOrgRoleSync: false, ...over,
});

test.each([
  [{ whitelist: [], allowedDomains: [] }, undefined, true],
  [{ whitelist: [], allowedDomains: [] }, 'a@b.c', true],
  [{ whitelist: [], allowedDomains: ['example.com'] }, 'A@Example.COM', true],
  [{ whitelist: [], allowedDomains: ['example.com'] }, 'a@sub.example.com', false],
  [{ whitelist: [], allowedDomains: ['example.com'] }, 'a@example.com.evil.org', false],
  [{ whitelist: ['boss@else.org'], allowedDomains: ['example.com'] }, 'boss@else.org', true],
  [{ whitelist: ['boss@else.org'], allowedDomains: [] }, 'other@else.org', false],
  [{ whitelist: ['boss@else.org'], allowedDomains: [] }, undefined, false],
])('emailAllowed(%j, %s) = %s', (rule, email, ok) => {
  expect(emailAllowed(email, rule)).toBe(ok);
});

test.each([
  ['groups: the highest mapped role', { groups: ['devs', 'admins', 'x'] }, m({ groupMappings: { devs: 'manager', admins: 'admin' } }), 'admin'],
  ['a single group string', { groups: 'devs' }, m({ groupMappings: { devs: 'manager' } }), 'manager'],
  ['another groups claim', { roles: ['devs'] }, m({ groupsClaim: 'roles', groupMappings: { devs: 'operator' } }), 'operator'],
  ['nothing matches: the default role', { groups: ['x'] }, m({ groupMappings: { devs: 'manager' }, defaultRole: 'operator' }), 'operator'],
  ['nothing matches under strict: refused', { groups: ['x'] }, m({ roleAttributeStrict: true }), undefined],
  ['jq: a claim', { role: 'Manager' }, m({ roleAttributePath: '.role' }), 'manager'],
  ['jq: an if over groups', { groups: ['a', 'ops'] }, m({ roleAttributePath: 'if (.groups | index("ops")) then "operator" else "viewer" end' }), 'operator'],
  ['jq: nested claims, first of several outputs', { realm: { roles: ['admin', 'viewer'] } }, m({ roleAttributePath: '.realm.roles[]' }), 'admin'],
  ['jq: not a role falls through to groups', { role: 'root', groups: ['devs'] }, m({ roleAttributePath: '.role', groupMappings: { devs: 'manager' } }), 'manager'],
  ['jq: a runtime error falls through', {}, m({ roleAttributePath: '.groups[]', roleAttributeStrict: true }), undefined],
])('%s', async (_w, claims, mapping, role) => {
  expect(await mapRole(claims, mapping)).toBe(role);
});

test('a syntax error of the jq expression is found; a runtime error is not one', async () => {
  expect(await expressionProblem('.a |||')).toEqual(expect.stringContaining('compile error'));
  expect(await expressionProblem('.groups[]')).toBeUndefined();
  expect(await expressionProblem('if .a then "admin" else empty end')).toBeUndefined();
});
