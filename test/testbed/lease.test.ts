/** Node health from Lease age: a running agent renews its Nodes' Leases, a stopped one lets them go stale. */
import { cluster, createNamespace, createPod, deleteNamespace, describeCluster, eventually, getPod, sh, sleep } from './helpers.js';
import { startAgent, stopAgent, type AgentInfo } from './lib/testbed.js';

interface Lease {
  spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string };
  metadata: { ownerReferences?: { kind: string; name: string }[] };
}

describeCluster(
  'node Leases',
  () => {
    let ns = '';
    let agent: AgentInfo | undefined;
    const lease = (name: string): Promise<Lease> => cluster().kube.get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`);
    beforeAll(async () => {
      ns = await createNamespace('lease');
    });
    afterAll(async () => {
      const state = cluster().state;
      if (agent && state) await stopAgent(state, agent);
      await deleteNamespace(ns);
    });

    test('a stopped agent’s Lease ages and its Node gets no new Pods', async () => {
      const state = cluster().state;
      if (!state) throw new Error('no test bed state');
      agent = await startAgent(state, [{ name: 'node-x', labels: { 'svc.testbed/pool': 'x' } }], { leaseDurationSeconds: 4, renewIntervalSeconds: 1 });
      const first = await eventually('the node-x Lease', () => lease('node-x'));
      expect(first.spec.holderIdentity).toBe('node-x');
      expect(first.spec.leaseDurationSeconds).toBe(4);
      expect(first.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Node', name: 'node-x' });
      const renewed = await eventually('a renewal', async () => {
        const l = await lease('node-x');
        return Date.parse(l.spec.renewTime) > Date.parse(first.spec.renewTime) ? l : undefined;
      }, 10000);
      expect(Date.now() - Date.parse(renewed.spec.renewTime)).toBeLessThan(3000);

      // A Pod for pool x runs there while the agent lives.
      await createPod(ns, { metadata: { name: 'on-x' }, spec: { nodeSelector: { 'svc.testbed/pool': 'x' }, restartPolicy: 'Never', containers: [sh('main', 'true')] } });
      await eventually('on-x to succeed', async () => (await getPod(ns, 'on-x')).status?.phase === 'Succeeded');
      expect((await getPod(ns, 'on-x')).spec.nodeName).toBe('node-x');

      await stopAgent(state, agent);
      agent = undefined;
      const last = (await lease('node-x')).spec.renewTime;
      await sleep(5000);
      const after = await lease('node-x');
      expect(after.spec.renewTime).toBe(last);
      const age = (Date.now() - Date.parse(after.spec.renewTime)) / 1000;
      expect(age).toBeGreaterThan(after.spec.leaseDurationSeconds);
      // The Node object stays (no node lifecycle controller), but the scheduler treats it as gone.
      await createPod(ns, { metadata: { name: 'for-x' }, spec: { nodeSelector: { 'svc.testbed/pool': 'x' }, containers: [sh('main', 'true')] } });
      const cond = await eventually('for-x Unschedulable', async () => (await getPod(ns, 'for-x')).status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False'));
      expect(cond.reason).toBe('Unschedulable');
      // Other nodes keep renewing.
      const a = await lease('node-a');
      expect(Date.now() - Date.parse(a.spec.renewTime)).toBeLessThan(5000);
      await cluster().kube.delete('/api/v1/nodes/node-x');
    });
  },
  { testbedOnly: true },
);
