/**
 * PersistentVolumeClaim volumes: one directory per claim for the whole test bed (ReadWriteMany across
 * Nodes), a Pod waits for its claim to exist, and a mountPath under the host's temp dir becomes a link.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cluster, createNamespace, createPod, deleteNamespace, describeCluster, eventually, getPod, kubectl, sh, waitPhase } from './helpers.js';
import { claimsDir } from './lib/testbed.js';

interface Event {
  reason: string;
  message: string;
}

describeCluster(
  'PersistentVolumeClaim volumes',
  () => {
    let ns = '';
    let mounts = '';
    beforeAll(async () => {
      ns = await createNamespace('pvc');
      mounts = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-mounts-'));
    });
    afterAll(async () => {
      await deleteNamespace(ns);
      fs.rmSync(mounts, { recursive: true, force: true }); // links only: the claim's data stays with the test bed
    });

    const claim = (name: string): Promise<unknown> =>
      cluster().kube.post(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name },
        spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } },
      });
    const onPool = (pool: string, volumeMounts: object[], script: string): object => ({
      nodeSelector: { 'svc.testbed/pool': pool },
      restartPolicy: 'Never',
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'shared' } }],
      containers: [sh('main', script, { volumeMounts })],
    });

    test('a Pod waits for its claim (FailedMount); Pods on two Nodes share the claim’s files', async () => {
      const state = cluster().state;
      if (!state) throw new Error('no test bed state');
      const at = path.join(mounts, 'data');
      // The writer uses its mountPath (a link the agent makes, as the path is under the temp dir).
      await createPod(ns, { metadata: { name: 'writer' }, spec: onPool('a', [{ name: 'data', mountPath: at }], `echo from-writer > ${at}/hello`) });
      const event = await eventually('FailedMount for the missing claim', async () => {
        const events = await cluster().kube.get<{ items: Event[] }>(`/api/v1/namespaces/${ns}/events`, { fieldSelector: 'involvedObject.name=writer' });
        return events.items.find((e) => e.reason === 'FailedMount');
      });
      expect(event.message).toContain('persistentvolumeclaim "shared" not found');
      const waiting = await getPod(ns, 'writer');
      expect(waiting.status?.phase).toBe('Pending');
      expect(waiting.status?.containerStatuses?.[0]?.state.waiting?.reason).toBe('ContainerCreating');

      await claim('shared');
      expect((await waitPhase(ns, 'writer', ['Succeeded', 'Failed'], 20000)).status?.phase).toBe('Succeeded');
      const shared = path.join(claimsDir(state), ns, 'shared');
      expect(fs.readlinkSync(at)).toBe(fs.realpathSync(shared));
      expect(fs.readFileSync(path.join(shared, 'hello'), 'utf8')).toBe('from-writer\n');

      // The reader, on the other Node, mounts it at a path the agent cannot honour: the scratch dir's link.
      await createPod(ns, { metadata: { name: 'reader' }, spec: onPool('b', [{ name: 'data', mountPath: '/data' }], 'cat ${SVC_TESTBED_SCRATCH:-}/data/hello') });
      const reader = await waitPhase(ns, 'reader', ['Succeeded', 'Failed']);
      expect(reader.status?.phase).toBe('Succeeded');
      expect((await getPod(ns, 'writer')).spec.nodeName).toBe('node-a');
      expect(reader.spec.nodeName).toBe('node-b');
      expect((await kubectl(['logs', '-n', ns, 'reader'])).stdout).toBe('from-writer\n');
      // Nothing provisions: the claim stays Pending, which the agent does not mind.
      const pvc = await cluster().kube.get<{ status?: { phase?: string } }>(`/api/v1/namespaces/${ns}/persistentvolumeclaims/shared`);
      expect(pvc.status?.phase).toBe('Pending');
    });

    test('mountPath links: subPath, an existing path left alone, the link outlives the Pod', async () => {
      const state = cluster().state;
      if (!state) throw new Error('no test bed state');
      const existing = path.join(mounts, 'existing');
      fs.mkdirSync(existing);
      const part = path.join(mounts, 'part');
      await createPod(ns, {
        metadata: { name: 'sub' },
        spec: onPool('a', [{ name: 'data', mountPath: part, subPath: 'runs/1' }, { name: 'data', mountPath: existing }], `echo in-sub > ${part}/out; ls ${existing} | wc -l`),
      });
      expect((await waitPhase(ns, 'sub', ['Succeeded', 'Failed'])).status?.phase).toBe('Succeeded');
      const shared = fs.realpathSync(path.join(claimsDir(state), ns, 'shared'));
      expect(fs.readlinkSync(part)).toBe(path.join(shared, 'runs/1'));
      expect(fs.readFileSync(path.join(shared, 'runs', '1', 'out'), 'utf8')).toBe('in-sub\n');
      expect(fs.lstatSync(existing).isSymbolicLink()).toBe(false);
      expect((await kubectl(['logs', '-n', ns, 'sub'])).stdout.trim()).toBe('0');
      await kubectl(['delete', 'pod', '-n', ns, 'sub', '--wait=true']);
      expect(fs.readlinkSync(part)).toBe(path.join(shared, 'runs/1'));
      expect(fs.existsSync(path.join(shared, 'runs', '1', 'out'))).toBe(true);
    });
  },
  { testbedOnly: true },
);
