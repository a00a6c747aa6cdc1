/**
 * A step cannot read another run's logs and results, nor a Secret it was not given: a step Pod of one run
 * tries every way in it has while another run's step runs, and each is refused. Logs go to a bucket
 * (MinIO), the only log store whose isolation the test bed can show: its step Pods are host processes,
 * so a file another run wrote on a shared volume is readable whatever the Pod spec says (a real kubelet
 * mounts only the run's subPath; docs/kubernetes.md "What a step can reach").
 * - the Kubernetes API with the token it has: none, so the real API server refuses it;
 * - the bucket with the upload grant its entry holds (readable through /proc): it may write its own
 *   execution's keys and nothing else, and read nothing; the bucket's credentials are nowhere in its
 *   environment;
 * - its `kubernetes` block naming svc's own Secrets, another execution's Secret or svc's ServiceAccount:
 *   the operator refuses the step before any Pod exists.
 */
import { eventually } from '../helpers/server.js';
import { describeMinio } from '../helpers/minio.js';
import { kubectl } from '../testbed/helpers.js';
import { describeCluster } from './env.js';
import { BucketServer, finished, podsOf, start } from './servers.js';

const BUCKET = 'svc-isolation';
const PROBE = new URL('./fixtures/step-probe.mjs', import.meta.url).pathname;
const NOT_GIVEN = 'not-given-value-7f3a';

describeCluster('what a step Pod can reach', () => describeMinio('with step logs in a bucket', () => {
  // The operator (this process) signs grants with the bucket's credentials; steps must never see them.
  const bucket = new BucketServer(BUCKET, { SVC_POD_RETENTION: 'none', SVC_PROTECTED_SECRETS: 'svc-auth,svc-s3', SVC_PROTECTED_SERVICE_ACCOUNTS: 'svc-operator,svc-api' });
  beforeAll(async () => {
    await bucket.start();
    const secret = await kubectl(['create', 'secret', 'generic', 'not-given', '-n', bucket.srv.server.namespace!, `--from-literal=value=${NOT_GIVEN}`]);
    if (secret.code !== 0) throw new Error(`creating the Secret failed: ${secret.stderr}`);
  }, 60_000);
  afterAll(() => bucket.stop());

  test('another run\'s logs and Secret, the API and svc\'s own objects are all refused to a step', async () => {
    const { srv } = bucket;
    const ns = srv.server.namespace!;
    const keys = (prefix: string) => bucket.keys(prefix);
    const log = async (dag: string, id: string, step: string) => (await srv.get(`/dag-runs/${dag}/${id}/steps/${step}/log?stream=stdout`)).body.content;
    srv.dag('victim', ['steps:', '  - name: work', '    command: sh -c \'echo victim-log; sleep 15\''].join('\n'));
    const victimId = await start(srv, 'victim');
    // The victim's step runs: its Pod, its execution Secret (the Pod's name) and its first log chunk exist.
    const victimPod = await eventually(async () => (await podsOf(ns, 'svc.io/dag=victim'))[0]?.metadata.name, 'the victim\'s step Pod', 30_000);
    const victimKey = await eventually(async () => (await keys('svc/runs/')).find((k) => /\/logs\/[^/]+\.out\//.test(k)), 'the victim\'s first log chunk', 20_000);
    srv.dag('thief', [
      'type: graph',
      `env: [NS=${ns}, VICTIM_KEY=${victimKey}]`,
      'steps:',
      `  - name: probe`, `    command: node ${PROBE}`, '    output: PROBE',
      '  - name: other-execution-secret', '    command: "true"', `    kubernetes: {volumes: [{name: v, secret: {secretName: ${victimPod}}}]}`,
      '  - name: svc-secret', '    command: "true"', '    kubernetes: {volumes: [{name: v, secret: {secretName: svc-s3}}]}',
      '  - name: svc-account', '    command: "true"', '    kubernetes: {serviceAccountName: svc-operator}',
    ].join('\n'));
    const thiefId = await start(srv, 'thief');
    const thief = await finished(srv, 'thief', thiefId, 60_000);
    const node = (name: string) => thief.nodes.find((n: { step: { name: string } }) => n.step.name === name);
    expect(node('probe').statusLabel).toBe('succeeded');
    expect(node('other-execution-secret').error).toMatch(`mounts the Secret ${victimPod}, which is svc's own`);
    expect(node('svc-secret').error).toMatch('mounts the Secret svc-s3, which is svc\'s own');
    expect(node('svc-account').error).toMatch('svc-operator is svc\'s own ServiceAccount');
    // Refused before any Pod was made.
    expect((await podsOf(ns, 'svc.io/dag=thief')).map((p) => p.metadata.labels['svc.io/step'])).not.toEqual(expect.arrayContaining(['svc-secret']));

    const probe = JSON.parse(node('probe').output) as { serviceAccountToken: boolean; kubeconfig: string | null; environment: Record<string, string>; api: Record<string, number | string>; grant: boolean; s3: object };
    expect(probe.serviceAccountToken).toBe(false);
    expect(probe.kubeconfig).toBeNull();
    // No token: the real API server answers an anonymous request 401 (anonymous auth off) or 403 (RBAC).
    for (const [what, code] of Object.entries(probe.api)) expect([what, [401, 403].includes(code as number)]).toEqual([what, true]);
    const environment = JSON.stringify(probe.environment);
    for (const secret of [NOT_GIVEN, bucket.minio.credentials.secretAccessKey, bucket.minio.credentials.accessKeyId]) expect(environment).not.toContain(secret);
    expect(Object.keys(probe.environment).filter((k) => k.startsWith('AWS_') || k === 'SVC_UPLOAD')).toEqual([]);
    // Its own grant works (204) where it may write, and nowhere else; reading and listing need credentials.
    expect(probe.grant).toBe(true);
    expect(probe.s3).toEqual({ writeOwn: 204, writeOther: 403, readOther: 403, list: 403 });

    const victim = await finished(srv, 'victim', victimId, 60_000);
    expect(victim.statusLabel).toBe('succeeded');
    expect(await log('victim', victimId, 'work')).toBe('victim-log');
    expect((await keys('svc/runs/')).filter((k) => k.endsWith('.forged'))).toEqual([]);
  }, 150_000);
}));
