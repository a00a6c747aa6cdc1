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

describeTools('helm install of charts/svc', ['helm'], () => describeCluster('on the test bed', () => {
  const ns = `install-${randomBytes(3).toString('hex')}`;
  const tmp = mkdtempSync(join(tmpdir(), 'svc-install-'));
  let agent: AgentInfo | undefined;
  let installed = false;
  let api = '';
  let operatorMetrics = '';

  beforeAll(async () => {
    const address = hostAddress();
    if (!address) throw new Error('the host has no non-loopback IPv4 address: the API Service can have no endpoint');
    await applyCrds();
    const state = cluster().state!;
    // The svc Pods get a Node of their own (tainted: steps go elsewhere) whose Pods have a routable address.
    agent = await startAgent(state, [{ name: 'svc-system', labels: { 'svc.testbed/pool': 'system' }, taints: [{ key: 'svc.io/system', value: 'true', effect: 'NoSchedule' }], podIP: address }]);
    const [apiPort, webhookPort, operatorPort] = [await freePort(), await freePort(), await freePort()];
    const placement = { nodeSelector: { 'svc.testbed/pool': 'system' }, tolerations: [{ key: 'svc.io/system', operator: 'Exists', effect: 'NoSchedule' }] };
    // Ports of their own (every Pod of the test bed shares the host's network), one API replica for that
    // reason, and mount paths under the temp directory (the only ones the agent can honour).
    const values = {
      dataDir: join(tmp, 'data'),
      operator: { port: operatorPort, leaseSeconds: 5, stopGraceSeconds: 5, ...placement },
      api: { port: apiPort, replicas: 1, ...placement },
      webhook: { port: webhookPort, certDir: join(tmp, 'webhook-tls') },
    };
    writeFileSync(join(tmp, 'values.yaml'), stringify(values));
    const r = await helm(['install', RELEASE, 'charts/svc', '--namespace', ns, '--create-namespace', '--values', join(tmp, 'values.yaml')]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    installed = true;
    expect(r.stdout).toContain(`svc 0.1.0 is installed in namespace ${ns}`);
    operatorMetrics = `http://${address}:${operatorPort}/metrics`;
  }, 120_000);

  afterAll(async () => {
    if (installed) await helm(['uninstall', RELEASE, '--namespace', ns]);
    const state = cluster().state;
    if (agent && state) await stopAgent(state, agent);
    await kubectl(['delete', 'node', 'svc-system', '--ignore-not-found']);
    await kubectl(['delete', 'namespace', ns, '--ignore-not-found', '--wait=false']);
    rmSync(tmp, { recursive: true, force: true });
  }, 60_000);

  /** What the svc Pods say: their state and their logs (for a failure's message). */
  const diagnose = async (): Promise<string> => {
    const pods = (await json(['get', 'pods', '-n', ns])).items as Obj[];
    const lines = await Promise.all(pods.map(async (p) => {
      const logs = await kubectl(['logs', '-n', ns, p.metadata.name, '--tail=30']);
      return `${p.metadata.name} on ${p.spec.nodeName}: ${JSON.stringify(p.status?.containerStatuses?.map((c: Obj) => c.state))}\n${logs.stdout}${logs.stderr}`;
    }));
    const events = await kubectl(['get', 'events', '-n', ns, '--sort-by=.lastTimestamp']);
    return `${lines.join('\n')}\n${events.stdout}`;
  };

  test('the operator and the API come up; the API is reached through its Service\'s endpoint', async () => {
    for (const d of ['svc-operator', 'svc-api']) {
      await eventually(async () => (await json(['get', 'deployment', d, '-n', ns])).status?.availableReplicas === 1 || undefined, `${d} to be available`, 90_000)
        .catch(async (e: Error) => { throw new Error(`${e.message}\n${await diagnose()}`); });
    }
    const operatorPod = (await json(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/component=operator'])).items[0];
    expect(operatorPod.spec.nodeName).toBe('svc-system');
    await eventually(async () => (await json(['get', 'lease', 'svc-operator', '-n', ns])).spec?.holderIdentity === operatorPod.metadata.name || undefined, 'the operator to lead', 30_000);
    const slice = await eventually(async () => {
      const s = (await json(['get', 'endpointslices', '-n', ns, '-l', 'kubernetes.io/service-name=svc-api'])).items[0];
      return s?.endpoints?.length ? s : undefined;
    }, 'the API Service to have an endpoint', 30_000);
    const port = slice.ports.find((p: Obj) => p.name === 'http').port;
    api = `http://${slice.endpoints[0].addresses[0]}:${port}/api/v2`;
    const health = await eventually(async () => (await fetch(`${api}/health`).catch(() => undefined))?.ok || undefined, 'the API to answer', 30_000);
    expect(health).toBe(true);
    const metrics = await (await fetch(operatorMetrics)).text();
    expect(metrics).toMatch(/^svc_operator_leader 1$/m);
  }, 150_000);

  test('kubectl apply of a Dag goes through the admission webhook; a run started over REST succeeds with its logs', async () => {
    const ok = await kubectl(['apply', '-n', ns, '-f', join(ROOT, 'examples/kubernetes/hello.yaml')]);
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    const bad = await kubectl(['apply', '-n', ns, '-f', '-'], {
      input: stringify({ apiVersion: 'svc.io/v1alpha1', kind: 'Dag', metadata: { name: 'broken' }, spec: { steps: [{ name: 'a', command: 'true', depends: ['nowhere'] }] } }),
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/admission webhook "dags.svc.io" denied the request/);
    expect(bad.stderr).toMatch(/nowhere/);

    const started = await fetch(`${api}/dags/hello/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ params: 'NAME=cluster' }) });
    expect(started.status).toBe(200);
    const { dagRunId } = (await started.json()) as { dagRunId: string };
    const run = await eventually(async () => {
      const r = ((await (await fetch(`${api}/dag-runs/hello/${dagRunId}`)).json()) as Obj).dagRun;
      return r && [2, 3, 4, 6].includes(r.status) ? r : undefined;
    }, 'the run to finish', 90_000);
    expect(run.statusLabel).toBe('succeeded');
    const log = (await (await fetch(`${api}/dag-runs/hello/${dagRunId}/steps/shout/log?stream=stdout`)).json()) as Obj;
    expect(log.content).toBe('HELLO CLUSTER');
    const dagRun = await json(['get', 'dagrun', '-n', ns, '-l', 'svc.io/dag=hello']);
    expect(dagRun.items.length).toBe(1);
  }, 150_000);

  test('a step Pod runs as the steps\' ServiceAccount, without credentials, seeing only its own run on the data claim', async () => {
    const dag = ['steps:', '  - name: probe', '    command: sh -c \'sleep 4; if [ -z "$KUBECONFIG" ]; then echo no-credentials; fi\'', '    output: SEEN'].join('\n');
    const created = await fetch(`${api}/dags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'probe', spec: dag }) });
    expect(created.status).toBe(201);
    const { dagRunId } = (await (await fetch(`${api}/dags/probe/start`, { method: 'POST' })).json()) as { dagRunId: string };
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
      const r = ((await (await fetch(`${api}/dag-runs/probe/${dagRunId}`)).json()) as Obj).dagRun;
      return r && [2, 3, 4, 6].includes(r.status) ? r : undefined;
    }, 'the probe run to finish', 60_000);
    expect(run.statusLabel).toBe('succeeded');
    const outputs = ((await (await fetch(`${api}/dag-runs/probe/${dagRunId}/outputs`)).json()) as Obj).outputs;
    expect(outputs.seen).toBe('no-credentials');
  }, 120_000);

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
    ];
    const refused: [string, string, string, string?][] = [
      ['operator', 'get', 'secrets'], ['operator', 'list', 'secrets'], ['operator', 'create', 'dags.svc.io'], ['operator', 'update', 'leases.coordination.k8s.io/other'],
      ['operator', 'create', 'leases.coordination.k8s.io'], ['operator', 'create', 'pods', 'default'], ['operator', 'create', 'pods#exec'], ['operator', 'create', 'deployments.apps'],
      ['api', 'get', 'secrets/svc-webhook-tls'], ['api', 'list', 'secrets'], ['api', 'create', 'pods'], ['api', 'delete', 'pods'], ['api', 'get', 'pods#log'],
      ['api', 'list', 'dags.svc.io', 'default'], ['api', 'update', 'leases.coordination.k8s.io/svc-operator'],
      ['steps', 'get', 'secrets'], ['steps', 'list', 'pods'], ['steps', 'get', 'dagruns.svc.io'], ['steps', 'create', 'pods'], ['steps', 'list', 'nodes'],
    ];
    const answers = await Promise.all([...checks, ...refused].map(([who, verb, res, where]) => can(who, verb, res, where)));
    expect(answers).toEqual([...checks.map(([w, v, r, n]) => `${w} ${v} ${r}${n ? ` in ${n}` : ''}: yes`), ...refused.map(([w, v, r, n]) => `${w} ${v} ${r}${n ? ` in ${n}` : ''}: no`)]);
    expect(await kubectl(['auth', 'can-i', 'list', 'nodes', `--as=system:serviceaccount:${ns}:svc-api`]).then((r) => r.stdout.trim())).toBe('yes');
  }, 60_000);

  test('helm uninstall leaves no svc object behind but the CRDs and what users made with them', async () => {
    const r = await helm(['uninstall', RELEASE, '--namespace', ns, '--wait', '--timeout', '60s']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    installed = false;
    const left = async (): Promise<string[]> => {
      const kinds = 'deployments,replicasets,pods,services,serviceaccounts,secrets,configmaps,roles,rolebindings,leases,persistentvolumeclaims,poddisruptionbudgets,networkpolicies,endpointslices';
      const inNs = (await json(['get', kinds, '-n', ns])).items.map((o: Obj) => `${o.kind}/${o.metadata.name}`);
      const cluster = (await json(['get', 'clusterroles,clusterrolebindings,validatingwebhookconfigurations', '-l', `app.kubernetes.io/instance=${RELEASE}`])).items
        .filter((o: Obj) => o.metadata.name.includes(ns)).map((o: Obj) => `${o.kind}/${o.metadata.name}`);
      const nodeLeases = (await json(['get', 'roles,rolebindings', '-n', 'kube-node-lease'])).items.filter((o: Obj) => o.metadata.name.includes(ns)).map((o: Obj) => `${o.kind}/${o.metadata.name}`);
      return [...inNs, ...cluster, ...nodeLeases];
    };
    // What every namespace has from Kubernetes itself.
    const own = ['ServiceAccount/default', 'ConfigMap/kube-root-ca.crt'];
    await eventually(async () => (await left()).every((o) => own.includes(o)) || undefined, 'the release\'s objects to be gone', 60_000).catch(async () => {
      throw new Error(`left behind: ${(await left()).filter((o) => !own.includes(o)).join(', ')}`);
    });
    expect((await json(['get', 'crd', 'dags.svc.io'])).metadata.name).toBe('dags.svc.io');
    expect((await json(['get', 'dags', '-n', ns])).items.map((d: Obj) => d.metadata.name).sort()).toEqual(['hello', 'probe']);
  }, 120_000);
}, { testbedOnly: true }));
