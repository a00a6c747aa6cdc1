/**
 * svc installed the way a Kubernetes user installs it: `helm install` of charts/svc on the test bed, whose
 * agents run the svc image's operator and API Pods as local processes (the image's entrypoint, the Pods'
 * ServiceAccount tokens, the data claim shared by every Pod). Then a Dag applied with kubectl through the
 * admission webhook, a run started over the API Service's endpoint, its logs read back; each
 * ServiceAccount allowed what it needs and refused the rest; and `helm uninstall` leaving nothing but the
 * CRDs (and the Dags and DagRuns users made, which live as long as the CRDs).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { eventually } from '../helpers/server.js';
import { describeTools, toolPath } from '../helpers/tools.js';
import { cluster, describeCluster, kubectl } from '../testbed/helpers.js';
import { freePort, startAgent, stopAgent, type AgentInfo } from '../testbed/lib/testbed.js';
import { applyCrds } from './env.js';
import { describeMinio, startMinio, type MinioServer } from '../helpers/minio.js';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

const ROOT = new URL('../../', import.meta.url).pathname;
const RELEASE = 'svc';
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(toolPath('helm')!, ['--kubeconfig', cluster().kubeconfig, ...args], { cwd: ROOT, maxBuffer: 16 << 20 }, (e, stdout, stderr) => {
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The host's first non-loopback IPv4 address: Pods behind a Service need one (Endpoints refuse loopback). */
function hostAddress(): string | undefined {
  return Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
}

async function json(args: string[]): Promise<Obj> {
  const r = await kubectl([...args, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Obj;
}

/** The svc Pods' own Node (tainted: steps go elsewhere) whose Pods have a routable address. */
const PLACEMENT = { nodeSelector: { 'svc.testbed/pool': 'system' }, tolerations: [{ key: 'svc.io/system', operator: 'Exists', effect: 'NoSchedule' }] };

/** One release of the chart in a namespace of its own, as a test drives it. */
class Release {
  readonly ns = `install-${randomBytes(3).toString('hex')}`;
  readonly tmp = mkdtempSync(join(tmpdir(), 'svc-install-'));
  installed = false;
  api = '';
  operatorMetrics = '';
  /** Objects the test made itself in the namespace (not the release's). */
  keep: string[] = [];
  /** The admin's token: auth is on by default (builtin, the admin password generated into svc-auth). */
  token = '';

  /** fetch with the admin's token. */
  fetch(url: string, init: RequestInit = {}): Promise<Response> {
    return fetch(url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization: `Bearer ${this.token}` } });
  }

  /** Signs in as admin with the password the chart generated; an unauthenticated request is refused. */
  async login(): Promise<void> {
    const r = await kubectl(['get', 'secret', 'svc-auth', '-n', this.ns, '-o', 'jsonpath={.data.SVC_AUTH_ADMIN_PASSWORD}']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const password = Buffer.from(r.stdout, 'base64').toString();
    expect((await fetch(`${this.api}/dags`)).status).toBe(401);
    const login = await fetch(`${this.api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
    expect(login.status).toBe(200);
    this.token = ((await login.json()) as { token: string }).token;
    // The API's user records (the admin's password hash): made by svc, not the chart, so they outlive it.
    this.keep.push('Secret/svc-users');
  }

  /**
   * helm install with ports of its own (every Pod of the test bed shares the host's network), one API
   * replica for that reason, and mount paths under the temp directory (the only ones the agent honours).
   */
  async install(address: string, values: Obj = {}): Promise<void> {
    const [apiPort, webhookPort, operatorPort] = [await freePort(), await freePort(), await freePort()];
    const all = {
      dataDir: join(this.tmp, 'data'),
      operator: { port: operatorPort, leaseSeconds: 5, stopGraceSeconds: 5, ...PLACEMENT },
      api: { port: apiPort, replicas: 1, ...PLACEMENT },
      webhook: { port: webhookPort, certDir: join(this.tmp, 'webhook-tls') },
      ...values,
    };
    writeFileSync(join(this.tmp, 'values.yaml'), stringify(all));
    const r = await helm(['install', RELEASE, 'charts/svc', '--namespace', this.ns, '--create-namespace', '--values', join(this.tmp, 'values.yaml')]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    this.installed = true;
    expect(r.stdout).toContain(`svc 0.1.0 is installed in namespace ${this.ns}`);
    this.operatorMetrics = `http://${address}:${operatorPort}/metrics`;
  }

  async cleanUp(): Promise<void> {
    if (this.installed) await helm(['uninstall', RELEASE, '--namespace', this.ns]);
    await kubectl(['delete', 'namespace', this.ns, '--ignore-not-found', '--wait=false']);
    rmSync(this.tmp, { recursive: true, force: true });
  }

  /** What the svc Pods say: their state and their logs (for a failure's message). */
  async diagnose(): Promise<string> {
    const pods = (await json(['get', 'pods', '-n', this.ns])).items as Obj[];
    const lines = await Promise.all(pods.map(async (p) => {
      const logs = await kubectl(['logs', '-n', this.ns, p.metadata.name, '--tail=30']);
      return `${p.metadata.name} on ${p.spec.nodeName}: ${JSON.stringify(p.status?.containerStatuses?.map((c: Obj) => c.state))}\n${logs.stdout}${logs.stderr}`;
    }));
    const events = await kubectl(['get', 'events', '-n', this.ns, '--sort-by=.lastTimestamp']);
    return `${lines.join('\n')}\n${events.stdout}`;
  }

  /** Waits for both Deployments and the operator's lead; finds the API through its Service's EndpointSlice. */
  async up(): Promise<void> {
    const ns = this.ns;
    for (const d of ['svc-operator', 'svc-api']) {
      await eventually(async () => (await json(['get', 'deployment', d, '-n', ns])).status?.availableReplicas === 1 || undefined, `${d} to be available`, 90_000)
        .catch(async (e: Error) => { throw new Error(`${e.message}\n${await this.diagnose()}`); });
    }
    const operatorPod = (await json(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/component=operator'])).items[0];
    expect(operatorPod.spec.nodeName).toBe('svc-system');
    await eventually(async () => (await json(['get', 'lease', 'svc-operator', '-n', ns])).spec?.holderIdentity === operatorPod.metadata.name || undefined, 'the operator to lead', 30_000);
    const slice = await eventually(async () => {
      const s = (await json(['get', 'endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=svc-api'])).items[0];
      return s?.endpoints?.length ? s : undefined;
    }, 'the API Service to have an endpoint', 30_000);
    const port = slice.ports.find((p: Obj) => p.name === 'http').port;
    this.api = `http://${slice.endpoints[0].addresses[0]}:${port}/api/v2`;
    const health = await eventually(async () => (await fetch(`${this.api}/health`).catch(() => undefined))?.ok || undefined, 'the API to answer', 30_000);
    expect(health).toBe(true);
    await this.login();
    expect(await (await fetch(this.operatorMetrics)).text()).toMatch(/^svc_operator_leader 1$/m);
  }

  /** kubectl apply of the hello Dag (through the webhook), then a run over REST: its id, once it succeeded with its logs. */
  async runHello(): Promise<string> {
    const ok = await kubectl(['apply', '-n', this.ns, '-f', join(ROOT, 'examples/kubernetes/hello.yaml')]);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const started = await this.fetch(`${this.api}/dags/hello/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ params: 'NAME=cluster' }) });
    expect(started.status).toBe(200);
    const { dagRunId } = (await started.json()) as { dagRunId: string };
    const run = await eventually(async () => {
      const r = ((await (await this.fetch(`${this.api}/dag-runs/hello/${dagRunId}`)).json()) as Obj).dagRun;
      return r && [2, 3, 4, 6].includes(r.status) ? r : undefined;
    }, 'the run to finish', 90_000);
    expect(run.statusLabel).toBe('succeeded');
    const log = (await (await this.fetch(`${this.api}/dag-runs/hello/${dagRunId}/steps/shout/log?stream=stdout`)).json()) as Obj;
    expect(log.content).toBe('HELLO CLUSTER');
    return dagRunId;
  }

  /** Every object of the release in and for its namespace, but Kubernetes' own per namespace and `keep`. */
  async leftovers(): Promise<string[]> {
    const ns = this.ns;
    const kinds = 'deployments,replicasets,pods,services,serviceaccounts,secrets,configmaps,roles,rolebindings,leases,persistentvolumeclaims,poddisruptionbudgets,networkpolicies,endpointslices';
    const inNs = (await json(['get', kinds, '-n', ns])).items.map((o: Obj) => `${o.kind}/${o.metadata.name}`);
    const clusterWide = (await json(['get', 'clusterroles,clusterrolebindings,validatingwebhookconfigurations', '-l', `app.kubernetes.io/instance=${RELEASE}`])).items
      .filter((o: Obj) => o.metadata.name.includes(ns)).map((o: Obj) => `${o.kind}/${o.metadata.name}`);
    const nodeLeases = (await json(['get', 'roles,rolebindings', '-n', 'kube-node-lease'])).items.filter((o: Obj) => o.metadata.name.includes(ns)).map((o: Obj) => `${o.kind}/${o.metadata.name}`);
    const own = ['ServiceAccount/default', 'ConfigMap/kube-root-ca.crt', ...this.keep];
    return [...inNs, ...clusterWide, ...nodeLeases].filter((o) => !own.includes(o));
  }

  /** helm uninstall, then nothing of the release is left but the CRDs. */
  async uninstall(): Promise<void> {
    const r = await helm(['uninstall', RELEASE, '--namespace', this.ns, '--wait', '--timeout', '60s']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    this.installed = false;
    await eventually(async () => (await this.leftovers()).length === 0 || undefined, 'the release\'s objects to be gone', 60_000).catch(async () => {
      throw new Error(`left behind: ${(await this.leftovers()).join(', ')}`);
    });
    expect((await json(['get', 'crd', 'dags.svc.io'])).metadata.name).toBe('dags.svc.io');
  }
}

describeTools('helm install of charts/svc', ['helm'], () => describeCluster('on the test bed', () => {
  let agent: AgentInfo | undefined;
  let address = '';
  beforeAll(async () => {
    address = hostAddress() ?? '';
    if (!address) throw new Error('the host has no non-loopback IPv4 address: the API Service can have no endpoint');
    await applyCrds();
    agent = await startAgent(cluster().state!, [{ name: 'svc-system', labels: { 'svc.testbed/pool': 'system' }, taints: [{ key: 'svc.io/system', value: 'true', effect: 'NoSchedule' }], podIP: address }]);
  }, 60_000);
  afterAll(async () => {
    const state = cluster().state;
    if (agent && state) await stopAgent(state, agent);
    await kubectl(['delete', 'node', 'svc-system', '--ignore-not-found']);
  }, 60_000);

  describe('with the data claim', () => {
    const release = new Release();
    const ns = release.ns;
    beforeAll(() => release.install(address), 120_000);
    afterAll(() => release.cleanUp(), 60_000);

    test('the operator and the API come up; the API is reached through its Service\'s endpoint', () => release.up(), 150_000);

    test('kubectl apply of a Dag goes through the admission webhook; a run started over REST succeeds with its logs', async () => {
      await release.runHello();
      const bad = await kubectl(['apply', '-n', ns, '-f', '-'], {
        input: stringify({ apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'broken' }, spec: { steps: [{ name: 'a', command: 'true', depends: ['nowhere'] }] } }),
      });
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/admission webhook "dags.svc.io" denied the request/);
      expect(bad.stderr).toMatch(/nowhere/);
    }, 150_000);

    test('a step Pod runs as the steps\' ServiceAccount, without credentials, seeing only its own run on the data claim', async () => {
      const dag = ['steps:', '  - name: probe', '    command: sh -c \'sleep 4; if [ -z "$KUBECONFIG" ]; then echo no-credentials; fi\'', '    output: SEEN'].join('\n');
      const created = await release.fetch(`${release.api}/dags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'probe', spec: dag }) });
      expect(created.status).toBe(201);
      const { dagRunId } = (await (await release.fetch(`${release.api}/dags/probe/start`, { method: 'POST' })).json()) as { dagRunId: string };
      const pod = await eventually(async () => (await json(['get', 'pods', '-n', ns, '-l', 'svc.io/dag=probe'])).items[0], 'the step Pod', 30_000);
      expect(pod.spec.serviceAccountName).toBe('svc-steps');
      expect(pod.spec.automountServiceAccountToken).toBe(false);
      expect(pod.spec.volumes.filter((v: Obj) => v.projected || v.secret)).toEqual([]);
      const data = pod.spec.volumes.find((v: Obj) => v.persistentVolumeClaim);
      expect(data.persistentVolumeClaim.claimName).toBe('svc-data');
      const mounts = pod.spec.containers[0].volumeMounts.filter((m: Obj) => m.name === data.name);
      expect(mounts).toHaveLength(1);
      expect(mounts[0].subPath).toContain(dagRunId); // this run's directory, not the volume
      const run = await eventually(async () => {
        const r = ((await (await release.fetch(`${release.api}/dag-runs/probe/${dagRunId}`)).json()) as Obj).dagRun;
        return r && [2, 3, 4, 6].includes(r.status) ? r : undefined;
      }, 'the probe run to finish', 60_000);
      expect(run.statusLabel).toBe('succeeded');
      const outputs = ((await (await release.fetch(`${release.api}/dag-runs/probe/${dagRunId}/outputs`)).json()) as Obj).outputs;
      expect(outputs.seen).toBe('no-credentials');
    }, 120_000);

    test('a step may not mount svc\'s own Secrets or its data claim, nor run as its ServiceAccounts', async () => {
      const tries = { claim: '{volumes: [{name: v, persistentVolumeClaim: {claimName: svc-data}}]}', tls: '{volumes: [{name: v, secret: {secretName: svc-webhook-tls}}]}', account: '{serviceAccountName: svc-operator}' };
      const dag = ['type: graph', 'steps:', ...Object.entries(tries).flatMap(([name, k]) => [`  - name: ${name}`, '    command: "true"', `    kubernetes: ${k}`])].join('\n');
      // The install's pod policy refuses them when the DAG is saved (the operator checks again before a Pod).
      const saved = await release.fetch(`${release.api}/dags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'grab', spec: dag }) });
      const body = (await saved.json()) as { code: string; message: string };
      expect([saved.status, body.code]).toEqual([400, 'bad_request']);
      for (const field of ['step claim: kubernetes.volumes[0].persistentVolumeClaim.claimName', 'step tls: kubernetes.volumes[0].secret.secretName', 'step account: kubernetes.serviceAccountName']) expect(body.message).toContain(field);
      expect((await json(['get', 'pods', '-n', ns, '-l', 'svc.io/dag=grab'])).items).toEqual([]);
    }, 90_000);

    test('each ServiceAccount can do what it needs and is refused the rest', async () => {
      // resource#subresource, or resource/name.
      const can = async (who: string, verb: string, resource: string, namespace = ns): Promise<string> => {
        const [res, sub] = resource.split('#');
        const r = await kubectl(['auth', 'can-i', verb, res!, ...(sub ? [`--subresource=${sub}`] : []), '-n', namespace, `--as=system:serviceaccount:${ns}:svc-${who}`]);
        return `${who} ${verb} ${resource}${namespace === ns ? '' : ` in ${namespace}`}: ${r.stdout.trim()}`;
      };
      const checks: [string, string, string, string?][] = [
        ['operator', 'watch', 'dagruns.svc.io'], ['operator', 'update', 'dagruns.svc.io#status'], ['operator', 'create', 'pods'], ['operator', 'delete', 'pods'],
        ['operator', 'create', 'secrets'], ['operator', 'update', 'leases.coordination.k8s.io/svc-operator'], ['operator', 'list', 'leases.coordination.k8s.io', 'kube-node-lease'],
        ['api', 'create', 'dags.svc.io'], ['api', 'delete', 'dagruns.svc.io'], ['api', 'get', 'secrets/svc-users'], ['api', 'update', 'secrets/svc-api-keys'], ['api', 'list', 'pods'],
        ['api', 'update', 'leases.coordination.k8s.io/svc-admission'], ['operator', 'update', 'leases.coordination.k8s.io/svc-admission'],
      ];
      const refused: [string, string, string, string?][] = [
        ['operator', 'get', 'secrets'], ['operator', 'list', 'secrets'], ['operator', 'create', 'dags.svc.io'], ['operator', 'update', 'leases.coordination.k8s.io/other'],
        ['operator', 'create', 'leases.coordination.k8s.io'], ['operator', 'create', 'pods', 'default'], ['operator', 'create', 'pods#exec'], ['operator', 'create', 'deployments.apps'],
        ['api', 'get', 'secrets/svc-webhook-tls'], ['api', 'list', 'secrets'], ['api', 'create', 'pods'], ['api', 'delete', 'pods'], ['api', 'get', 'pods#log'],
        ['api', 'list', 'dags.svc.io', 'default'], ['api', 'update', 'leases.coordination.k8s.io/svc-operator'], ['api', 'create', 'leases.coordination.k8s.io'],
        ['steps', 'get', 'secrets'], ['steps', 'list', 'pods'], ['steps', 'get', 'dagruns.svc.io'], ['steps', 'create', 'pods'], ['steps', 'list', 'nodes'],
      ];
      const answers = await Promise.all([...checks, ...refused].map(([who, verb, res, where]) => can(who, verb, res, where)));
      expect(answers).toEqual([...checks.map(([w, v, r, n]) => `${w} ${v} ${r}${n ? ` in ${n}` : ''}: yes`), ...refused.map(([w, v, r, n]) => `${w} ${v} ${r}${n ? ` in ${n}` : ''}: no`)]);
      expect(await kubectl(['auth', 'can-i', 'list', 'nodes', `--as=system:serviceaccount:${ns}:svc-api`]).then((r) => r.stdout.trim())).toBe('yes');
    }, 60_000);

    test('helm uninstall leaves no svc object behind but the CRDs and what users made with them', async () => {
      await release.uninstall();
      expect((await json(['get', 'dags', '-n', ns])).items.map((d: Obj) => d.metadata.name).sort()).toEqual(['hello', 'probe']);
    }, 120_000);
  });

  describeMinio('with step logs in a bucket (logStore.type=s3)', () => {
    const release = new Release();
    const ns = release.ns;
    let minio: MinioServer;
    let client: S3Client;
    const team = `team-${randomBytes(3).toString('hex')}`;
    beforeAll(async () => {
      minio = await startMinio();
      await minio.createBucket('svc-logs');
      client = minio.client();
      await kubectl(['create', 'namespace', ns]);
      const secret = await kubectl(['create', 'secret', 'generic', 'svc-s3', '-n', ns, `--from-literal=AWS_ACCESS_KEY_ID=${minio.credentials.accessKeyId}`, `--from-literal=AWS_SECRET_ACCESS_KEY=${minio.credentials.secretAccessKey}`]);
      expect(secret.code).toBe(0);
      release.keep.push('Secret/svc-s3');
      // Cluster-wide, narrowed to namespaces labelled for this release: the other tests' stay theirs.
      await release.install(address, {
        logStore: { type: 's3', s3: { bucket: 'svc-logs', endpoint: minio.endpoint, prefix: 'cluster', credentialsSecret: 'svc-s3' } },
        watch: { namespaces: 'all', namespaceSelector: `svc-install=${ns}` },
      });
    }, 120_000);
    afterAll(async () => {
      await kubectl(['delete', 'namespace', team, '--ignore-not-found', '--wait=false']);
      await release.cleanUp();
      client?.destroy();
      await minio?.stop();
    }, 60_000);

    const keysUnder = async (prefix: string): Promise<string[]> => ((await client.send(new ListObjectsV2Command({ Bucket: 'svc-logs', Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);

    test('no claim; a run\'s logs and outputs go to the bucket and are read from there', async () => {
      expect((await json(['get', 'pvc', '-n', ns])).items).toEqual([]);
      await release.up();
      const id = await release.runHello();
      const outputs = ((await (await release.fetch(`${release.api}/dag-runs/hello/${id}/outputs`)).json()) as Obj).outputs;
      expect(outputs).toMatchObject({ message: 'hello cluster', loudMessage: 'HELLO CLUSTER' });
      const keys = await keysUnder('cluster/runs/');
      expect(keys.filter((k) => /\/logs\/[^/]+\.out\//.test(k)).length).toBeGreaterThanOrEqual(2);
      expect(keys.some((k) => k.endsWith('/outputs.json'))).toBe(true);
    }, 240_000);

    test('cluster-wide: a Dag and a DagRun applied in a labelled namespace run there, as the operator\'s ClusterRole allows', async () => {
      expect((await kubectl(['create', 'namespace', team])).code).toBe(0);
      expect((await kubectl(['label', 'namespace', team, `svc-install=${ns}`])).code).toBe(0);
      const dag = { apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'hello' }, spec: { steps: [{ name: 'wait', command: 'sh -c "sleep 3; echo from-team"', output: 'SAID' }] } };
      const request = { apiVersion: 'svc.io/v1alpha1', kind: 'DagRun', metadata: { name: 'first' }, spec: { dag: 'hello' } };
      const applied = await kubectl(['apply', '-n', team, '-f', '-'], { input: `${stringify(dag)}---\n${stringify(request)}` });
      expect([applied.code, applied.stderr]).toEqual([0, '']);
      const pod = await eventually(async () => (await json(['get', 'pods', '-n', team, '-l', 'svc.io/component=step'])).items[0], 'the step Pod in the team namespace', 60_000)
        .catch(async (e: Error) => { throw new Error(`${e.message}\n${await release.diagnose()}`); });
      expect([pod.spec.serviceAccountName, pod.spec.automountServiceAccountToken]).toEqual(['default', false]);
      const answered = await eventually(async () => (await json(['get', 'dagrun', 'first', '-n', team])).status?.startedRun, 'the request to be answered', 30_000);
      const run = await eventually(async () => {
        const o = await json(['get', 'dagrun', answered, '-n', team]);
        return ['succeeded', 'failed', 'aborted'].includes(o.status?.phase) ? o : undefined;
      }, 'the team\'s run to end', 60_000);
      expect(run.status.phase).toBe('succeeded');
      // Its log, in the bucket under the namespace's own prefix.
      const chunk = (await keysUnder(`cluster/namespaces/${team}/runs/`)).find((k) => /\/logs\/[^/]+\.out\//.test(k));
      const text = await (await client.send(new GetObjectCommand({ Bucket: 'svc-logs', Key: chunk }))).Body?.transformToString();
      expect(text).toBe('from-team\n');

      const can = async (who: string, verb: string, resource: string, where: string[]): Promise<string> => {
        const [res, sub] = resource.split('#');
        const r = await kubectl(['auth', 'can-i', verb, res!, ...(sub ? [`--subresource=${sub}`] : []), ...where, `--as=system:serviceaccount:${ns}:svc-${who}`]);
        return `${who} ${verb} ${resource} ${where.join(' ')}: ${r.stdout.trim()}`;
      };
      const inTeam = ['-n', team];
      const allowed: [string, string, string, string[]][] = [
        ['operator', 'watch', 'dagruns.svc.io', inTeam], ['operator', 'update', 'dagruns.svc.io#status', inTeam], ['operator', 'list', 'dags.svc.io', inTeam],
        ['operator', 'create', 'pods', inTeam], ['operator', 'delete', 'pods', ['-n', 'default']], ['operator', 'create', 'secrets', inTeam], ['operator', 'list', 'namespaces', []],
        // Pod Security labels (podSecurity.enforce) on the namespaces it finds: every one, cluster-wide.
        ['operator', 'get', 'namespaces', []], ['operator', 'patch', 'namespaces', []],
      ];
      const refused: [string, string, string, string[]][] = [
        ['operator', 'get', 'secrets', inTeam], ['operator', 'list', 'secrets', inTeam], ['operator', 'create', 'dags.svc.io', inTeam], ['operator', 'create', 'pods#exec', inTeam],
        ['operator', 'update', 'leases.coordination.k8s.io/svc-operator', inTeam], ['operator', 'create', 'deployments.apps', inTeam], ['operator', 'delete', 'namespaces', []],
        ['api', 'list', 'dags.svc.io', inTeam], ['api', 'create', 'dagruns.svc.io', inTeam], ['steps', 'get', 'dagruns.svc.io', inTeam], ['steps', 'list', 'pods', inTeam],
      ];
      const answers = await Promise.all([...allowed, ...refused].map(([w, v, r, n]) => can(w, v, r, n)));
      expect(answers).toEqual([...allowed.map(([w, v, r, n]) => `${w} ${v} ${r} ${n.join(' ')}: yes`), ...refused.map(([w, v, r, n]) => `${w} ${v} ${r} ${n.join(' ')}: no`)]);
    }, 180_000);

    test('helm uninstall leaves nothing of the release, its ClusterRole and ClusterRoleBinding included', async () => {
      await release.uninstall();
      expect((await json(['get', 'clusterroles,clusterrolebindings', '-l', `app.kubernetes.io/instance=${RELEASE}`])).items.filter((o: Obj) => o.metadata.name.includes(ns))).toEqual([]);
    }, 120_000);
  });
}, { testbedOnly: true }));
