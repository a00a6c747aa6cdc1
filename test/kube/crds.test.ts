/**
 * The Dag and DagRun CRDs on the test bed's real API server: they apply cleanly, `kubectl explain` and
 * `kubectl get` are useful, a Dag manifest round-trips and stays stable under repeated server-side apply.
 */
import { createNamespace, deleteNamespace, describeCluster, eventually, kubectl } from '../testbed/helpers.js';

const crdFile = (name: string) => new URL(`../../crds/${name}`, import.meta.url).pathname;

const DAG = (ns: string) => `
apiVersion: svc.io/v1alpha1
kind: Dag
metadata: {name: nightly, namespace: ${ns}}
spec:
  description: Nightly build
  schedule: "0 2 * * *"
  steps:
    - name: build
      command: make
      retryPolicy: {limit: 2, intervalSec: 5}
    - name: test
      command: [make test, make lint]
`;

describeCluster('the svc CRDs on a real API server', () => {
  let ns = '';

  beforeAll(async () => {
    for (const f of ['svc.io_dags.yaml', 'svc.io_dagruns.yaml']) {
      const r = await kubectl(['apply', '--server-side', '-f', crdFile(f)]);
      expect(r.stderr).toBe('');
    }
    for (const crd of ['dags.svc.io', 'dagruns.svc.io']) {
      expect((await kubectl(['wait', '--for=condition=Established', `crd/${crd}`, '--timeout=30s'])).code).toBe(0);
    }
    ns = await createNamespace('crds');
    await eventually('the dags resource to be served', async () => (await kubectl(['get', 'dags', '-n', ns])).code === 0);
  });
  afterAll(() => deleteNamespace(ns));

  test('kubectl explain dag.spec.steps lists the step fields with their descriptions', async () => {
    // The API server publishes a new CRD's OpenAPI a moment after it is established.
    const r = await eventually('kubectl explain to know dags', async () => {
      const out = await kubectl(['explain', 'dag.spec.steps']);
      return out.code === 0 ? out : undefined;
    });
    expect(r.stdout).toMatch(/retryPolicy/);
    expect(r.stdout).toMatch(/command/);
    expect(r.stdout).toMatch(/Command line/);
  });

  test('a Dag manifest applies, shows its columns, and stays unchanged under repeated server-side apply', async () => {
    const first = await kubectl(['apply', '--server-side', '--field-manager=gitops', '-f', '-'], { input: DAG(ns) });
    expect(first.stderr).toBe('');
    const rv = (await kubectl(['get', 'dag', 'nightly', '-n', ns, '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    const again = await kubectl(['apply', '--server-side', '--field-manager=gitops', '-f', '-'], { input: DAG(ns) });
    expect(again.stdout).toMatch(/serverside-applied|unchanged/);
    expect((await kubectl(['get', 'dag', 'nightly', '-n', ns, '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout).toBe(rv);
    const spec = JSON.parse((await kubectl(['get', 'dag', 'nightly', '-n', ns, '-o', 'json'])).stdout).spec;
    // Nothing defaulted into spec: what was applied is what is stored.
    expect(spec).toEqual({ description: 'Nightly build', schedule: '0 2 * * *', steps: [
      { name: 'build', command: 'make', retryPolicy: { limit: 2, intervalSec: 5 } },
      { name: 'test', command: ['make test', 'make lint'] },
    ] });
    const table = await kubectl(['get', 'dags', '-n', ns]);
    expect(table.stdout.split('\n')[0]).toMatch(/NAME\s+SCHEDULE\s+SUSPENDED\s+LAST RUN\s+AGE/);
    expect(table.stdout).toMatch(/nightly\s+0 2 \* \* \*/);
    expect((await kubectl(['get', 'svc', '-n', ns])).code).toBe(0);
    expect((await kubectl(['get', 'dg', '-n', ns])).stdout).toMatch(/nightly/);
  });

  test('every example manifest (examples/kubernetes, from `svc kube manifest`) applies as it is', async () => {
    const dir = new URL('../../examples/kubernetes/', import.meta.url).pathname;
    const r = await kubectl(['apply', '-n', ns, '-f', dir]);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toHaveLength(8);
    const names = JSON.parse((await kubectl(['get', 'dags', '-n', ns, '-o', 'json'])).stdout).items.map((d: { metadata: { name: string } }) => d.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['conditions', 'fan-out', 'graph', 'handlers', 'hello', 'resilience', 'scheduled', 'secrets']));
  });

  test('a field the schema does not know, or a step that is not an object, is refused at apply', async () => {
    const typo = DAG(ns).replace('schedule:', 'schedul:').replace('name: nightly', 'name: typo');
    const r1 = await kubectl(['apply', '-f', '-'], { input: typo });
    expect(r1.code).not.toBe(0);
    expect(r1.stderr).toMatch(/schedul/);
    const nested = DAG(ns).replace('name: nightly', 'name: nested').replace('    - name: test\n      command: [make test, make lint]', '    - [a, b]');
    const r2 = await kubectl(['apply', '-f', '-'], { input: nested });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toMatch(/spec\.steps\[1\]/);
  });

  test('kubectl get dagruns prints DAG, status, steps done/total, started and age from the status subresource', async () => {
    const run = { apiVersion: 'svc.io/v1alpha1', kind: 'DagRun', metadata: { name: 'nightly-r1', namespace: ns }, spec: { dagName: 'nightly', dagRunId: 'r1', params: '', trigger: 'manual', workingDir: '/', root: { name: 'nightly', dagRunId: 'r1' }, definition: { steps: [] } } };
    expect((await kubectl(['create', '-f', '-'], { input: JSON.stringify(run) })).stderr).toBe('');
    const status = { status: { attemptId: 'a1', queuedAt: '', phase: 'running', progress: '1/2', run: { status: 1, startedAt: new Date().toISOString(), nodes: [] } } };
    const patched = await kubectl(['patch', 'dagrun', 'nightly-r1', '-n', ns, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
    expect(patched.stderr).toBe('');
    const table = await kubectl(['get', 'dagruns', '-n', ns]);
    expect(table.stdout.split('\n')[0]).toMatch(/NAME\s+DAG\s+STATUS\s+STEPS\s+STARTED\s+AGE/);
    expect(table.stdout).toMatch(/nightly-r1\s+nightly\s+running\s+1\/2\s+\d+s/);
    expect(JSON.parse((await kubectl(['get', 'dr', 'nightly-r1', '-n', ns, '-o', 'json'])).stdout).status.run.nodes).toEqual([]);
  });
});
