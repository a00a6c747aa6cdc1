/** Every Pod of the operator's is hardened, whatever the block says; the block adds only what the policy allowed. */
import { hardenedContainer, hardenedPod, STEP_USER } from './pod-hardening.js';

test('what the policy refuses never reaches the Pod, even when a block slips through', () => {
  const sc = hardenedContainer({ privileged: true, allowPrivilegeEscalation: true, seccompProfile: { type: 'Unconfined' }, procMount: 'Unmasked', seLinuxOptions: { type: 'spc_t' }, capabilities: { drop: [] } });
  expect(sc).toEqual({ runAsNonRoot: true, allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } });
  expect(hardenedPod({ sysctls: [{ name: 'kernel.x', value: '1' }], seccompProfile: { type: 'Unconfined' } })).toEqual({
    runAsUser: STEP_USER, runAsGroup: STEP_USER, fsGroup: STEP_USER, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' },
  });
});

test('what the policy allowed is kept: a user, groups, added capabilities, a Localhost profile, root when asked', () => {
  expect(hardenedContainer({ runAsUser: 1000, runAsGroup: 10, readOnlyRootFilesystem: true, capabilities: { add: ['NET_BIND_SERVICE'] }, seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } })).toEqual({
    runAsUser: 1000, runAsGroup: 10, readOnlyRootFilesystem: true, runAsNonRoot: true, allowPrivilegeEscalation: false, privileged: false,
    capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }, seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' },
  });
  expect(hardenedPod({ fsGroup: 5 }, { runAsUser: 1000 })).toEqual({ fsGroup: 5, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  expect(hardenedContainer({ runAsUser: 0 }).runAsNonRoot).toBe(false);
  expect(hardenedPod(undefined, { runAsUser: 0 })).toEqual({ runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } });
});
