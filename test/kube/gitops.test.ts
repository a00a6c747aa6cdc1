/**
 * GitOps with the kubernetes backend, as Argo CD (examples/gitops) drives it: server-side apply of the
 * example Dag manifests is idempotent (no diff, no new resourceVersion), and an edit made through the REST
 * API shows up as drift (kubectl diff, an apply that conflicts with the field manager "svc") instead of
 * being silently overwritten by the next sync or silently lost.
 */
import { kubectl } from '../testbed/helpers.js';
import { describeCluster } from './env.js';
import { kubeServer } from './servers.js';

const EXAMPLES = new URL('../../examples/kubernetes/', import.meta.url).pathname;
const MANAGER = '--field-manager=argocd-controller';

describeCluster('GitOps: Dag manifests under server-side apply', () => {
  const srv = kubeServer({ SVC_TEST_OPERATOR: 'off' });
  let ns = '';
  beforeAll(async () => {
    await srv.start();
    ns = srv.server.namespace!;
  });
  afterAll(() => srv.stop());

  const versions = async (): Promise<Record<string, string>> => {
    const items = JSON.parse((await kubectl(['get', 'dags', '-n', ns, '-o', 'json'])).stdout).items as { metadata: { name: string; resourceVersion: string } }[];
    return Object.fromEntries(items.map((d) => [d.metadata.name, d.metadata.resourceVersion]));
  };
  const apply = (file: string, ...extra: string[]) => kubectl(['apply', '--server-side', MANAGER, '-n', ns, '-f', file, ...extra]);

  test('repeated server-side apply of every example Dag leaves no diff and no new version', async () => {
    const first = await apply(EXAMPLES);
    expect([first.code, first.stderr]).toEqual([0, '']);
    const before = await versions();
    expect(Object.keys(before)).toHaveLength(8);
    const again = await apply(EXAMPLES);
    expect(again.stdout.trim().split('\n').every((l) => /serverside-applied$/.test(l))).toBe(true);
    expect(await versions()).toEqual(before);
    const diff = await kubectl(['diff', '--server-side', MANAGER, '-n', ns, '-f', EXAMPLES]);
    expect([diff.code, diff.stdout]).toEqual([0, '']);
    const listed = (await srv.get('/dags')).body.dags.map((d: { fileName: string; errors: string[] }) => `${d.fileName} ${d.errors.length}`);
    expect(listed).toEqual(expect.arrayContaining(['hello 0', 'graph 0', 'scheduled 0']));
  });

  test('a REST edit of a GitOps-managed Dag is drift: kubectl diff shows it, a sync without force is refused', async () => {
    const hello = `${EXAMPLES}hello.yaml`;
    const { spec } = (await srv.get('/dags/hello/spec')).body;
    const edited = spec.replace('echo "${GREETING} ${NAME}"', 'echo "${GREETING}, ${NAME}!"');
    expect(edited).not.toBe(spec);
    const put = await srv.req('PUT', '/dags/hello/spec', { spec: edited });
    expect([put.status, put.body.errors]).toEqual([200, []]);

    // What Argo CD shows as OutOfSync: the live object against Git's, as if Git's were applied.
    const diff = await kubectl(['diff', '--server-side', '--force-conflicts', MANAGER, '-n', ns, '-f', hello]);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain('${GREETING}, ${NAME}!');
    const sync = await apply(hello);
    expect(sync.code).not.toBe(0);
    expect(sync.stderr).toMatch(/conflict with "svc"/);
    expect((await srv.get('/dags/hello/spec')).body.spec).toContain('${GREETING}, ${NAME}!');

    // Git wins only when asked to (Argo CD's sync with force, or selfHeal).
    const forced = await apply(hello, '--force-conflicts');
    expect(forced.code).toBe(0);
    expect((await srv.get('/dags/hello/spec')).body.spec).toContain('echo "${GREETING} ${NAME}"');
    const clean = await kubectl(['diff', '--server-side', '--force-conflicts', MANAGER, '-n', ns, '-f', hello]);
    expect([clean.code, clean.stdout]).toEqual([0, '']);
  });
});
