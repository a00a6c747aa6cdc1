/**
 * The `kubernetes` block on the operator: the DAG's block with the step's over it reaches the step Pod
 * (resources, tolerations, a ConfigMap volume and its mount, labels, annotations, nodeSelector), and the
 * step runs with it. On the test bed: a toleration is what lets a step onto a tainted Node.
 */
import { eventually } from '../helpers/server.js';
import { cluster, kubectl } from '../testbed/helpers.js';
import { startAgent, stopAgent, type AgentInfo } from '../testbed/lib/testbed.js';
import { describeCluster } from './env.js';
import { finished, kubeServer, start } from './servers.js';

async function podOf(ns: string, dag: string, step: string): Promise<any> {
  const r = await kubectl(['get', 'pods', '-n', ns, '-l', `svc.io/component=step,svc.io/dag=${dag},svc.io/step=${step}`, '-o', 'json']);
  const items = JSON.parse(r.stdout).items as any[];
  expect(items).toHaveLength(1);
  return items[0];
}

describeCluster('the kubernetes block on step Pods', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  let ns = '';
  beforeAll(async () => {
    await srv.start();
    ns = srv.server.namespace!;
    const cm = await kubectl(['create', 'configmap', 'greeting', '-n', ns, '--from-literal=greeting=hello-from-configmap']);
    if (cm.code !== 0) throw new Error(`creating the ConfigMap failed: ${cm.stderr}`);
  });
  afterAll(() => srv.stop());

  test('the merged block is in the Pod spec, the ConfigMap is mounted, and the run succeeds', async () => {
    srv.dag('blocked', [
      'workerSelector: { svc.testbed/pool: b }',
      'kubernetes:',
      '  labels: { team: data, tier: "1" }',
      '  resources: { requests: { cpu: 50m } }',
      '  tolerations: [{ key: dedicated, operator: Equal, value: batch, effect: NoSchedule }]',
      'steps:',
      '  - name: read',
      // On the test bed a volume is a directory under the Pod's scratch dir; on a cluster it is at its mountPath.
      '    command: cat ${SVC_TESTBED_SCRATCH:-}/cfg/greeting',
      '    output: GREETING',
      '    kubernetes:',
      '      resources: { requests: { cpu: 100m, memory: 32Mi }, limits: { memory: 64Mi } }',
      '      nodeSelector: { svc.testbed/pool: a, kubernetes.io/os: linux }',
      '      labels: { tier: "2", purpose: read }',
      '      annotations: { example.com/note: hello }',
      '      volumes: [{ name: cfg, configMap: { name: greeting } }]',
      '      volumeMounts: [{ name: cfg, mountPath: /cfg, readOnly: true }]',
    ].join('\n'));
    const id = await start(srv, 'blocked');
    const run = await finished(srv, 'blocked', id);
    expect(run.statusLabel).toBe('succeeded');
    expect(run.nodes[0].output).toBe('hello-from-configmap');
    const pod = await podOf(ns, 'blocked', 'read');
    expect(pod.metadata.labels).toMatchObject({ team: 'data', tier: '2', purpose: 'read', 'svc.io/component': 'step', 'app.kubernetes.io/managed-by': 'svc-operator' });
    expect(pod.metadata.annotations).toMatchObject({ 'example.com/note': 'hello' });
    // workerSelector wins over the block's nodeSelector on a shared key.
    expect(pod.spec.nodeSelector).toEqual({ 'svc.testbed/pool': 'b', 'kubernetes.io/os': 'linux' });
    expect(pod.spec.nodeName).toBe('node-b');
    expect(pod.spec.tolerations).toEqual(expect.arrayContaining([{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }]));
    expect(pod.spec.volumes).toEqual(expect.arrayContaining([{ name: 'cfg', configMap: { name: 'greeting', defaultMode: 420 } }]));
    const step = pod.spec.containers.find((c: any) => c.name === 'step');
    expect(step.resources).toEqual({ requests: { cpu: '100m', memory: '32Mi' }, limits: { memory: '64Mi' } });
    expect(step.volumeMounts).toEqual(expect.arrayContaining([{ name: 'cfg', mountPath: '/cfg', readOnly: true }]));
  });
});

describeCluster('tolerations on the test bed', () => {
  const srv = kubeServer();
  let agent: AgentInfo | undefined;
  const node = 'node-tainted';
  beforeAll(async () => {
    agent = await startAgent(cluster().state!, [{
      name: node, labels: { 'svc.testbed/group': 'tainted' }, taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }],
    }]);
    await srv.start();
  });
  afterAll(async () => {
    await srv.stop();
    if (agent) await stopAgent(cluster().state!, agent).catch(() => undefined);
    await cluster().kube.delete(`/api/v1/nodes/${node}`).catch(() => undefined);
  });

  test('a step that tolerates the taint runs on the tainted Node; one that does not waits and says why', async () => {
    srv.dag('tolerant', [
      'kubernetes: { nodeSelector: { svc.testbed/group: tainted } }',
      'steps:',
      '  - name: on-tainted',
      '    command: echo $SVC_TESTBED_NODE',
      '    output: NODE',
      '    kubernetes: { tolerations: [{ key: dedicated, operator: Exists, effect: NoSchedule }] }',
    ].join('\n'));
    const id = await start(srv, 'tolerant');
    const run = await finished(srv, 'tolerant', id);
    expect(run.statusLabel).toBe('succeeded');
    expect(run.nodes[0].output).toBe(node);

    srv.dag('intolerant', ['kubernetes: { nodeSelector: { svc.testbed/group: tainted } }', 'steps:', '  - name: kept-out', '    command: echo never'].join('\n'));
    const out = await start(srv, 'intolerant');
    const said = await eventually(async () => {
      const c = (await srv.get(`/dag-runs/intolerant/${out}/steps/kept-out/log?stream=stderr`)).body.content as string | undefined;
      return c?.includes('Unschedulable') ? c : undefined;
    }, 'the step log to say why it waits', 30_000);
    expect(said).toMatch(/untolerated taint/);
    expect((await srv.post(`/dag-runs/intolerant/${out}/stop`)).status).toBe(200);
    expect((await finished(srv, 'intolerant', out)).statusLabel).toBe('aborted');
  });
}, { testbedOnly: true });
