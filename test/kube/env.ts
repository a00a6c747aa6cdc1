/**
 * What the Kubernetes backend's tests share: the svc CRDs applied once to the test bed's API server, a
 * fresh namespace per fixture, and a KubeConfig of the cluster for the adapters.
 */
import { loadKubeConfig } from '../../src/adapters/kube/client.js';
import { cluster, createNamespace, eventually, kubectl } from '../testbed/helpers.js';

export { describeCluster, deleteNamespace } from '../testbed/helpers.js';

let applied: Promise<void> | undefined;

/** Applies crds/ (server-side, as a user would) and waits until both resources are served. */
export function applyCrds(): Promise<void> {
  applied ??= (async () => {
    const dir = new URL('../../crds/', import.meta.url).pathname;
    const r = await kubectl(['apply', '--server-side', '-f', dir]);
    if (r.code !== 0) throw new Error(`applying crds/ failed: ${r.stderr}`);
    // Right after the apply a CRD may have no conditions at all yet (kubectl wait then fails at once).
    for (const crd of ['dags.svc.io', 'dagruns.svc.io']) {
      await eventually(`crd/${crd} to be established`, async () => {
        const w = await kubectl(['get', `crd/${crd}`, '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']);
        return w.stdout === 'True';
      });
    }
    const probe = await createNamespace('crd-probe');
    await eventually('the svc.io resources to be served', async () => (await kubectl(['get', 'dags,dagruns', '-n', probe])).code === 0);
  })();
  return applied;
}

/** A fresh namespace, with the CRDs applied, and the cluster's KubeConfig. */
export async function kubeFixture(prefix: string) {
  await applyCrds();
  const namespace = await createNamespace(prefix);
  return { namespace, kc: loadKubeConfig(cluster().kubeconfig) };
}
