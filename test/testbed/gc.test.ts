/** The garbage collector of the test bed's kube-controller-manager deletes owned Pods with their owner. */
import { cluster, createNamespace, createPod, deleteNamespace, describeCluster, eventually, sh, waitPhase } from './helpers.js';

describeCluster('ownerReference garbage collection', () => {
  let ns = '';
  beforeAll(async () => {
    ns = await createNamespace('gc');
  });
  afterAll(() => deleteNamespace(ns));

  test('deleting an owner deletes its owned Pods (background and foreground)', async () => {
    const { kube } = cluster();
    for (const [owner, policy] of [
      ['owner-bg', 'Background'],
      ['owner-fg', 'Foreground'],
    ] as const) {
      const cm = await kube.post<{ metadata: { uid: string } }>(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: owner } });
      const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner, uid: cm.metadata.uid, blockOwnerDeletion: true }];
      for (const i of [1, 2]) {
        await createPod(ns, { metadata: { name: `${owner}-pod${i}`, ownerReferences }, spec: { terminationGracePeriodSeconds: 1, containers: [sh('main', 'sleep 300')] } });
      }
      await createPod(ns, { metadata: { name: `${owner}-free` }, spec: { restartPolicy: 'Never', containers: [sh('main', 'true')] } });
      await waitPhase(ns, `${owner}-pod1`, ['Running']);
      await kube.delete(`/api/v1/namespaces/${ns}/configmaps/${owner}`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: policy });
      await eventually(`the Pods owned by ${owner} to be gone`, async () => {
        const list = await kube.get<{ items: { metadata: { name: string } }[] }>(`/api/v1/namespaces/${ns}/pods`);
        const names = list.items.map((p) => p.metadata.name).filter((n) => n.startsWith(owner));
        return names.length === 1 && names[0] === `${owner}-free`;
      }, 45000);
    }
  });
});
