/**
 * ATTACK: reading the release namespace's `provider: env` Secret from another namespace. An operator
 * watching a second namespace (SVC_WATCH_NAMESPACES) runs Dags applied there by whoever may write Dags
 * in it; their env secrets must resolve from that namespace's own Secret named SVC_SECRET_ENV_FROM,
 * never from the operator's home namespace's (which holds the home DAGs' credentials).
 */
import { stringify } from 'yaml';
import { loadKubeConfig } from '../../../src/adapters/kube/client.js';
import { KubeRunStore } from '../../../src/adapters/kube/run-store.js';
import { runStatusLabel } from '../../../src/core/run/status.js';
import { eventually } from '../../helpers/server.js';
import { cluster, createNamespace, kubectl } from '../../testbed/helpers.js';
import { deleteNamespace, describeCluster } from '../../kube/env.js';
import { kubeServer } from '../../kube/servers.js';

const SECRET = 'step-env';
/** Says which Secret the variable came from, without printing it. */
const WHICH = 'sh -c \'case "$TOKEN" in home-credential) echo HOME;; team-credential) echo TEAM;; *) echo NONE;; esac\'';

async function applyRun(ns: string, name: string): Promise<void> {
  const dag = { apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name }, spec: { secrets: [{ name: 'TOKEN', provider: 'env', key: 'TOKEN' }], steps: [{ name: 'which', command: WHICH, output: 'WHICH' }] } };
  const run = { apiVersion: 'svc.io/v1alpha1', kind: 'DagRun', metadata: { name: 'now' }, spec: { dag: name } };
  const r = await kubectl(['apply', '-n', ns, '-f', '-'], { input: `${stringify(dag)}---\n${stringify(run)}` });
  expect([r.code, r.stderr]).toEqual([0, '']);
}

async function ended(ns: string, dagName: string) {
  const store = new KubeRunStore(loadKubeConfig(cluster().kubeconfig), ns);
  try {
    return await eventually(async () => {
      const r = await store.get({ dagName, dagRunId: 'now' });
      return r && ['succeeded', 'failed', 'aborted'].includes(runStatusLabel(r.status.run.status)) ? r : undefined;
    }, `${dagName}/now in ${ns} to end`, 60_000);
  } finally {
    await store.close();
  }
}

const secret = (ns: string, value: string) => kubectl(['create', 'secret', 'generic', SECRET, '-n', ns, `--from-literal=TOKEN=${value}`]);

describeCluster('ATTACK: a watched namespace\'s env secrets reading the home namespace\'s Secret', () => {
  let team = '';
  let bare = '';
  let srv: ReturnType<typeof kubeServer>;
  beforeAll(async () => {
    [team, bare] = [await createNamespace('env-team'), await createNamespace('env-bare')];
    srv = kubeServer({ SVC_WATCH_NAMESPACES: `${team},${bare}`, SVC_SECRET_ENV_FROM: SECRET });
    await srv.start();
    expect((await secret(srv.server.namespace!, 'home-credential')).code).toBe(0);
    expect((await secret(team, 'team-credential')).code).toBe(0);
  });
  afterAll(async () => {
    await srv?.stop();
    await Promise.all([team, bare].filter(Boolean).map((ns) => deleteNamespace(ns)));
  });

  test('a DAG of the watched namespace reads that namespace\'s Secret; the home DAG reads the home one', async () => {
    await Promise.all([applyRun(team, 'team-dag'), applyRun(srv.server.namespace!, 'home-dag')]);
    const [teamRun, homeRun] = await Promise.all([ended(team, 'team-dag'), ended(srv.server.namespace!, 'home-dag')]);
    expect([runStatusLabel(teamRun.status.run.status), teamRun.status.run.nodes[0]!.output]).toEqual(['succeeded', 'TEAM']);
    expect([runStatusLabel(homeRun.status.run.status), homeRun.status.run.nodes[0]!.output]).toEqual(['succeeded', 'HOME']);
  }, 120_000);

  test('a watched namespace without that Secret fails the run, naming its own namespace: no fallback to home', async () => {
    await applyRun(bare, 'bare-dag');
    const run = await ended(bare, 'bare-dag');
    expect(runStatusLabel(run.status.run.status)).toBe('failed');
    expect(run.status.run.error).toContain(`does not exist in namespace ${bare}`);
    expect(JSON.stringify(run.status.run.nodes)).not.toContain('HOME');
  }, 120_000);
});
