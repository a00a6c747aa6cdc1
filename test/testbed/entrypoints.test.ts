/**
 * Image entrypoints: a container without a command runs its image's ENTRYPOINT and CMD (agent config
 * `entrypoints`): the svc image runs this repository's `svc server`, more images come from
 * SVC_TESTBED_ENTRYPOINTS (read by startAgent), and an image the agent knows nothing of fails to start.
 */
import { cluster, createNamespace, createPod, deleteNamespace, describeCluster, eventually, getPod, kubectl, waitPhase } from './helpers.js';
import { freePort, startAgent, stopAgent, type AgentInfo } from './lib/testbed.js';

const NODE = 'node-ep';
const TAINT = { key: 'svc.testbed/dedicated', value: 'entrypoints', effect: 'NoSchedule' as const };
const GREETER = { 'tools/greeter': { entrypoint: ['/bin/sh', '-c', 'echo "entry:$*"', 'greeter'], cmd: ['from-cmd'] } };

describeCluster(
  'image entrypoints',
  () => {
    let ns = '';
    let agent: AgentInfo | undefined;
    beforeAll(async () => {
      ns = await createNamespace('entry');
    });
    afterAll(async () => {
      await deleteNamespace(ns);
      const state = cluster().state;
      if (agent && state) await stopAgent(state, agent);
      await cluster()
        .kube.delete(`/api/v1/nodes/${NODE}`)
        .catch(() => undefined);
    });

    test('the svc image without command runs `svc server`; args replace its CMD', async () => {
      const port = await freePort();
      // A volume mounted over the directory the entrypoint lives in (the chart mounts /tmp, and a checkout
      // may live there): the entrypoint is the agent's host path, never looked up in the volume.
      const top = `/${new URL('../../', import.meta.url).pathname.split('/')[1]}`;
      await createPod(ns, { metadata: { name: 'svc-help' }, spec: {
        restartPolicy: 'Never', volumes: [{ name: 'scratch', emptyDir: {} }],
        containers: [{ name: 'main', image: 'svc:0.1.0', args: ['help'], volumeMounts: [{ name: 'scratch', mountPath: top }] }],
      } });
      await createPod(ns, { metadata: { name: 'svc-server' }, spec: { containers: [{ name: 'main', image: 'svc:0.1.0', env: [{ name: 'SVC_PORT', value: String(port) }] }] } });
      expect((await waitPhase(ns, 'svc-help', ['Succeeded', 'Failed'])).status?.phase).toBe('Succeeded');
      expect((await kubectl(['logs', '-n', ns, 'svc-help'])).stdout).toMatch(/^usage: svc <command>/);
      await waitPhase(ns, 'svc-server', ['Running']);
      const health = await eventually('svc server /health', () => fetch(`http://127.0.0.1:${port}/api/v2/health`).then((r) => (r.ok ? (r.json() as Promise<{ status: string }>) : undefined)), 30000);
      expect(health.status).toBe('healthy');
      expect((await kubectl(['logs', '-n', ns, 'svc-server'])).stdout).toContain(`listening on http://127.0.0.1:${port}`);
      expect((await kubectl(['delete', 'pod', '-n', ns, 'svc-server', '--wait=true', '--timeout=30s'])).code).toBe(0);
    });

    test('SVC_TESTBED_ENTRYPOINTS: ENTRYPOINT + CMD, args replace CMD, command replaces both; unknown images fail', async () => {
      const state = cluster().state;
      if (!state) throw new Error('no test bed state');
      const before = process.env.SVC_TESTBED_ENTRYPOINTS;
      process.env.SVC_TESTBED_ENTRYPOINTS = JSON.stringify(GREETER);
      try {
        agent = await startAgent(state, [{ name: NODE, labels: { 'svc.testbed/pool': 'ep' }, taints: [TAINT] }]);
      } finally {
        if (before === undefined) delete process.env.SVC_TESTBED_ENTRYPOINTS;
        else process.env.SVC_TESTBED_ENTRYPOINTS = before;
      }
      const pods: Record<string, object> = {
        plain: {},
        args: { args: ['a', '$(X)'], env: [{ name: 'X', value: 'x' }] },
        command: { command: ['echo', 'own'] },
        both: { command: ['echo', 'own'], args: ['b'] },
      };
      const spec = (c: object, image = 'tools/greeter:1.0'): object => ({
        nodeSelector: { 'svc.testbed/pool': 'ep' },
        tolerations: [{ ...TAINT, operator: 'Equal' }],
        restartPolicy: 'Never',
        containers: [{ name: 'main', image, ...c }],
      });
      for (const [name, c] of Object.entries(pods)) await createPod(ns, { metadata: { name }, spec: spec(c) });
      await createPod(ns, { metadata: { name: 'unknown' }, spec: spec({}, 'tools/unknown:1.0') });
      const out: Record<string, string> = {};
      for (const name of Object.keys(pods)) {
        expect((await waitPhase(ns, name, ['Succeeded', 'Failed'])).spec.nodeName).toBe(NODE);
        out[name] = (await kubectl(['logs', '-n', ns, name])).stdout;
      }
      expect(out).toEqual({ plain: 'entry:from-cmd\n', args: 'entry:a x\n', command: 'own\n', both: 'own b\n' });
      const failed = await waitPhase(ns, 'unknown', ['Failed', 'Succeeded']);
      expect(failed.status?.phase).toBe('Failed');
      const term = (await getPod(ns, 'unknown')).status?.containerStatuses?.[0]?.state.terminated as { message?: string } | undefined;
      expect(term).toMatchObject({ exitCode: 128, reason: 'StartError' });
      expect(term?.message).toContain('knows no entrypoint of image tools/unknown:1.0 (agent config "entrypoints")');
    });
  },
  { testbedOnly: true },
);
