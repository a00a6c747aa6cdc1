/** SVC_POD_POLICY: the install's widening of the pod policy of steps, explicit and checked. */
import { DEFAULT_POD_POLICY } from '../core/spec/pod-policy.js';
import { loadPodPolicy, widenings } from './pod-policy.js';

test('unset: the default policy, nothing widened', () => {
  expect(loadPodPolicy({})).toBe(DEFAULT_POD_POLICY);
  expect(widenings(loadPodPolicy({ SVC_POD_POLICY: '{}' }))).toEqual([]);
});

test('each widening is listed', () => {
  const p = loadPodPolicy({ SVC_POD_POLICY: JSON.stringify({ serviceAccounts: ['batch'], secrets: ['team-a-*'], capabilities: ['NET_BIND_SERVICE'], root: true }) });
  expect(p).toEqual({ ...DEFAULT_POD_POLICY, serviceAccounts: ['batch'], secrets: ['team-a-*'], capabilities: ['NET_BIND_SERVICE'], root: true });
  expect(widenings(p)).toEqual(['serviceAccounts: batch', 'secrets: team-a-*', 'capabilities: NET_BIND_SERVICE', 'root: steps may run as root']);
  expect(loadPodPolicy({}, { podPolicy: { claims: ['datasets'] } }).claims).toEqual(['datasets']);
});

test.each([
  ['not JSON', '{', /SVC_POD_POLICY: not JSON/],
  ['a list', '[]', /must be a map/],
  ['an unknown key', '{"privileged": true}', /unknown key privileged/],
  ['a bare *', '{"secrets": ["*"]}', /secrets: "\*" is a bare "\*"/],
  ['a bad name', '{"serviceAccounts": ["Bad_Name"]}', /serviceAccounts: "Bad_Name" is not an object name/],
  ['a prefix where names only', '{"serviceAccounts": ["svc-*"]}', /is not an object name/],
  ['a capability with CAP_', '{"capabilities": ["cap_sys_admin"]}', /not a capability name/],
  ['root as text', '{"root": "yes"}', /root must be true or false/],
])('refused: %s', (_, v, message) => {
  expect(() => loadPodPolicy({ SVC_POD_POLICY: v })).toThrow(message);
});
