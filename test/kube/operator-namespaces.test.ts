/**
 * An operator that drives the runs of other namespaces than its own (SVC_WATCH_NAMESPACES): `all` (every
 * namespace holding a Dag, narrowed here by a namespace label selector so that the other tests' namespaces
 * on the same test bed stay theirs) and a list. A Dag and a DagRun applied with kubectl in two namespaces,
 * with the same names in both, run there: their step Pods in their namespace, their logs apart.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import { KubeRunStore } from '../../src/adapters/kube/run-store.js';
import { runStatusLabel } from '../../src/core/run/status.js';
import { dagRunName } from '../../src/core/naming.js';
import { eventually } from '../helpers/server.js';
import { loadKubeConfig } from '../../src/adapters/kube/client.js';
import { cluster, createNamespace, kubectl } from '../testbed/helpers.js';
import { deleteNamespace, describeCluster } from './env.js';
import { kubeServer, podsOf } from './servers.js';

const GROUP = `g-${randomBytes(3).toString('hex')}`;
const made: string[] = [];
afterAll(() => Promise.all(made.map((ns) => deleteNamespace(ns))));

/** kubectl apply of the Dag `hello` (its step says where it ran) and of a DagRun `nightly` naming it. */
async function applyRun(ns: string): Promise<void> {
  const dag = { apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'hello' }, spec: { steps: [{ name: 'say', command: `echo from-${ns}`, output: 'SAID' }] } };
  const run = { apiVersion: 'svc.io/v1alpha1', kind: 'DagRun', metadata: { name: 'nightly' }, spec: { dag: 'hello' } };
  const r = await kubectl(['apply', '-n', ns, '-f', '-'], { input: `${stringify(dag)}---\n${stringify(run)}` });
  expect([r.code, r.stderr]).toEqual([0, '']);
}

async function labelled(prefix: string, labels: string[]): Promise<string> {
  const ns = await createNamespace(prefix);
  made.push(ns);
  if (labels.length > 0) expect((await kubectl(['label', 'namespace', ns, ...labels])).code).toBe(0);
  return ns;
}

/** The run `hello/nightly` of a namespace, once it ended. */
async function ended(ns: string) {
  const store = new KubeRunStore(loadKubeConfig(cluster().kubeconfig), ns);
  return eventually(async () => {
    const r = await store.get({ dagName: 'hello', dagRunId: 'nightly' });
    return r && ['succeeded', 'failed', 'aborted'].includes(runStatusLabel(r.status.run.status)) ? r : undefined;
  }, `hello/nightly in ${ns} to end`, 60_000);
}

const answer = async (ns: string): Promise<string | undefined> => JSON.parse((await kubectl(['get', 'dagrun', 'nightly', '-n', ns, '-o', 'json'])).stdout).status?.phase;

describeCluster('an operator watching every namespace (SVC_WATCH_NAMESPACES=all)', () => {
  const srv = kubeServer({ SVC_WATCH_NAMESPACES: 'all', SVC_WATCH_NAMESPACE_SELECTOR: `svc-test/group=${GROUP}`, SVC_POD_RETENTION: 'all' });
  beforeAll(() => srv.start());
  afterAll(() => srv.stop());

  test('a Dag and a DagRun applied in two other namespaces run there, apart; an unselected namespace is left alone', async () => {
    const [a, b, other] = [await labelled('team-a', [`svc-test/group=${GROUP}`]), await labelled('team-b', [`svc-test/group=${GROUP}`]), await labelled('team-c', [])];
    await Promise.all([applyRun(a), applyRun(b), applyRun(other)]);
    for (const ns of [a, b]) {
      const run = await ended(ns);
      expect(runStatusLabel(run.status.run.status)).toBe('succeeded');
      expect(run.status.run.nodes[0]!.output).toBe(`from-${ns}`);
      expect(await answer(ns)).toBe('started');
      const pods = await podsOf(ns, 'svc.io/dag=hello');
      expect(pods.map((p) => p.metadata.labels['svc.io/run'])).toEqual([dagRunName('hello', 'nightly')]);
      // Same DAG name, same run id: each namespace's logs in a place of its own.
      expect(existsSync(join(srv.dataDir, 'namespaces', ns, 'runs', dagRunName('hello', 'nightly')))).toBe(true);
    }
    expect(await podsOf(srv.server.namespace!, 'svc.io/dag=hello')).toEqual([]);
    expect(existsSync(join(srv.dataDir, 'runs', dagRunName('hello', 'nightly')))).toBe(false);
    expect(await answer(other)).toBeUndefined();
    expect(await podsOf(other)).toEqual([]);
  }, 120_000);
});

describeCluster('an operator watching a list of namespaces', () => {
  let listed = '';
  let unlisted = '';
  const later = `later-${randomBytes(3).toString('hex')}`;
  let srv: ReturnType<typeof kubeServer>;
  beforeAll(async () => {
    [listed, unlisted] = [await labelled('listed', []), await labelled('unlisted', [])];
    srv = kubeServer({ SVC_WATCH_NAMESPACES: `${listed},${later}` });
    await srv.start();
  });
  afterAll(() => srv.stop());

  test('a listed namespace made after the operator started is served once it exists', async () => {
    expect((await kubectl(['create', 'namespace', later])).code).toBe(0);
    made.push(later);
    await eventually(async () => (await kubectl(['get', 'serviceaccount', 'default', '-n', later])).code === 0, `${later}'s default ServiceAccount`, 30_000);
    await applyRun(later);
    expect(runStatusLabel((await ended(later)).status.run.status)).toBe('succeeded');
  }, 120_000);

  test('runs in a listed namespace, and in its own; not in another', async () => {
    await Promise.all([applyRun(listed), applyRun(unlisted)]);
    const run = await ended(listed);
    expect(runStatusLabel(run.status.run.status)).toBe('succeeded');
    expect(run.status.run.nodes[0]!.output).toBe(`from-${listed}`);
    await applyRun(srv.server.namespace!);
    expect(runStatusLabel((await ended(srv.server.namespace!)).status.run.status)).toBe('succeeded');
    expect(await answer(unlisted)).toBeUndefined();
  }, 120_000);
});
