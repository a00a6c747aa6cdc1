/**
 * ATTACK: the Helm chart's defaults. A step runs users' code in a Pod of the release namespace: it must
 * get no cloud identity of svc's (workload identity for the bucket lives in ServiceAccount annotations),
 * must reach neither the API nor the operator over the network, and the API it cannot reach must not be
 * open to everyone else either: auth is on unless turned off explicitly, and then NOTES.txt warns.
 * Checked on what `helm template` and `helm install --dry-run` render.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describeTools, toolPath } from '../helpers/tools.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CHART = join(ROOT, 'charts/svc');
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(toolPath('helm')!, args, { cwd: ROOT, maxBuffer: 64 << 20 }, (e, stdout, stderr) => {
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
  });
}
const sets = (values: string[]) => values.flatMap((v) => ['--set', v]);
const template = (values: string[] = []) => helm(['template', 'demo', CHART, '--namespace', 'svc', ...sets(values)]);
const objects = async (values: string[] = []): Promise<Obj[]> => {
  const t = await template(values);
  expect([t.code, t.stderr]).toEqual([0, '']);
  return parseAllDocuments(t.stdout).map((d) => d.toJS() as Obj).filter(Boolean);
};
const find = (all: Obj[], kind: string, name: string): Obj => all.find((o) => o.kind === kind && o.metadata.name === name)!;

/** Whether a NetworkPolicy peer's selector admits a Pod with these labels (namespace selectors aside). */
function selects(selector: Obj | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector.matchExpressions ?? []).every((e: Obj) => {
    const has = e.key in labels;
    if (e.operator === 'In') return has && e.values.includes(labels[e.key]);
    if (e.operator === 'NotIn') return !has || !e.values.includes(labels[e.key]);
    if (e.operator === 'Exists') return has;
    return !has;
  });
  return byLabel && byExpression;
}

/** Whether a Pod with these labels may reach `port` of the Pods the policy selects. */
function reaches(policy: Obj, port: string, labels: Record<string, string>): boolean {
  return (policy.spec.ingress as Obj[]).some((rule) => {
    const onPort = !rule.ports || rule.ports.some((p: Obj) => p.port === port);
    const peers: Obj[] | undefined = rule.from;
    return onPort && (!peers || peers.some((peer) => !peer.ipBlock && selects(peer.podSelector, labels)));
  });
}

const STEP_POD = { 'svc.io/component': 'step', 'svc.io/run': 'r', 'app.kubernetes.io/managed-by': 'svc-operator' };
const OTHER_POD = { app: 'ingress-nginx' };

describeTools('ATTACK: the chart\'s defaults give step Pods svc\'s identity, network reach or an open API', ['helm'], () => {
  test('each ServiceAccount has annotations of its own: the bucket\'s workload identity never reaches the steps\' ServiceAccount', async () => {
    const role = 'eks.amazonaws.com/role-arn';
    const all = await objects([`serviceAccount.operator.annotations.${role.replace(/\./g, '\\.')}=arn:operator`, `serviceAccount.api.annotations.${role.replace(/\./g, '\\.')}=arn:api`]);
    expect(find(all, 'ServiceAccount', 'demo-svc-operator').metadata.annotations).toEqual({ [role]: 'arn:operator' });
    expect(find(all, 'ServiceAccount', 'demo-svc-api').metadata.annotations).toEqual({ [role]: 'arn:api' });
    expect(find(all, 'ServiceAccount', 'demo-svc-steps').metadata.annotations).toBeUndefined();
    const steps = await objects(['serviceAccount.steps.annotations.team=x']);
    expect(find(steps, 'ServiceAccount', 'demo-svc-steps').metadata.annotations).toEqual({ team: 'x' });
    expect(find(steps, 'ServiceAccount', 'demo-svc-api').metadata.annotations).toBeUndefined();
  });

  test('the one-for-all serviceAccount.annotations is refused, saying where annotations go now', async () => {
    const t = await template(['serviceAccount.annotations.a=b']);
    expect(t.code).not.toBe(0);
    expect(t.stderr).toContain('serviceAccount.operator.annotations');
  });

  test('by default a NetworkPolicy keeps step Pods from the API and the operator; other Pods reach the API', async () => {
    const all = await objects();
    const api = find(all, 'NetworkPolicy', 'demo-svc-api');
    const operator = find(all, 'NetworkPolicy', 'demo-svc-operator');
    const apiPods = find(all, 'Deployment', 'demo-svc-api').spec.template.metadata.labels;
    const operatorPods = find(all, 'Deployment', 'demo-svc-operator').spec.template.metadata.labels;
    expect(selects(api.spec.podSelector, apiPods)).toBe(true);
    expect(selects(operator.spec.podSelector, operatorPods)).toBe(true);
    expect([api.spec.policyTypes, operator.spec.policyTypes]).toEqual([['Ingress'], ['Ingress']]);
    expect(reaches(api, 'http', STEP_POD)).toBe(false);
    expect(reaches(operator, 'metrics', STEP_POD)).toBe(false);
    expect(reaches(api, 'http', OTHER_POD)).toBe(true);
    expect(api.spec.ingress[0].from[0].namespaceSelector).toEqual({});
    // The operator serves nothing but its metrics port, and no other port of either is open.
    expect(operator.spec.ingress.map((r: Obj) => r.ports)).toEqual([[{ port: 'metrics' }]]);
  });

  test('networkPolicy.apiFrom opens the API to the peers listed, and only to them', async () => {
    const api = find(await objects(['networkPolicy.apiFrom[0].ipBlock.cidr=10.0.0.0/8']), 'NetworkPolicy', 'demo-svc-api');
    expect(api.spec.ingress[0].from).toEqual([{ ipBlock: { cidr: '10.0.0.0/8' } }]);
  });

  test('auth is on by default: builtin, with a generated token secret and admin password svc\'s own (steps may not mount it)', async () => {
    const all = await objects();
    const container = find(all, 'Deployment', 'demo-svc-api').spec.template.spec.containers[0];
    expect(container.env).toContainEqual({ name: 'SVC_AUTH_MODE', value: 'builtin' });
    expect(container.envFrom).toContainEqual({ secretRef: { name: 'demo-svc-auth' } });
    const secret = find(all, 'Secret', 'demo-svc-auth');
    const decoded = (k: string) => Buffer.from(secret.data[k], 'base64').toString();
    expect(decoded('SVC_AUTH_TOKEN_SECRET').length).toBeGreaterThanOrEqual(32);
    expect(decoded('SVC_AUTH_ADMIN_PASSWORD').length).toBeGreaterThanOrEqual(16);
    const again = find(await objects(), 'Secret', 'demo-svc-auth');
    expect(again.data.SVC_AUTH_ADMIN_PASSWORD).not.toBe(secret.data.SVC_AUTH_ADMIN_PASSWORD); // random, not a constant
    const operatorEnv = find(all, 'Deployment', 'demo-svc-operator').spec.template.spec.containers[0].env;
    expect(operatorEnv.find((e: Obj) => e.name === 'SVC_PROTECTED_SECRETS').value.split(',')).toContain('demo-svc-auth');
    const own = await objects(['auth.existingSecret=mine']);
    expect(own.filter((o) => o.kind === 'Secret' && o.metadata.name === 'demo-svc-auth')).toEqual([]);
    expect(find(own, 'Deployment', 'demo-svc-api').spec.template.spec.containers[0].envFrom).toContainEqual({ secretRef: { name: 'mine' } });
  });

  test('auth.mode=none is refused unless accepted explicitly; then NOTES.txt warns', async () => {
    const refused = await template(['auth.mode=none']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('auth.allowUnauthenticated=true');
    const off = await helm(['install', 'demo', CHART, '--namespace', 'svc', '--dry-run=client', ...sets(['auth.mode=none', 'auth.allowUnauthenticated=true'])]);
    expect([off.code, off.stderr]).toEqual([0, '']);
    expect(off.stdout).toMatch(/WARNING: authentication is OFF/);
    const on = await helm(['install', 'demo', CHART, '--namespace', 'svc', '--dry-run=client']);
    expect(on.stdout).not.toMatch(/WARNING/);
    expect(on.stdout).toContain('get secret demo-svc-auth');
  });

  test('watched namespaces: the operator may get the env Secret there, by its name only', async () => {
    const all = await objects(['logStore.type=s3', 'logStore.s3.bucket=b', 'watch.namespaces={team-a}', 'operator.secretEnvFrom=step-env']);
    const runs = find(all, 'ClusterRole', 'svc-demo-svc-operator-runs');
    expect(runs.rules.filter((r: Obj) => r.resources.includes('secrets'))).toEqual([
      { apiGroups: [''], resources: ['secrets'], verbs: ['create', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['step-env'], verbs: ['get'] },
    ]);
  });

  test('the API answers its own Service names and the Ingress host, and no other name unless listed', async () => {
    const hosts = async (values: string[] = []) => {
      const env = find(await objects(values), 'Deployment', 'demo-svc-api').spec.template.spec.containers[0].env;
      return (env.find((e: Obj) => e.name === 'SVC_ALLOWED_HOSTS').value as string).split(',');
    };
    expect(await hosts()).toEqual(['demo-svc-api', 'demo-svc-api.svc', 'demo-svc-api.svc.svc', 'demo-svc-api.svc.svc.cluster.local']);
    const wider = await hosts(['api.ingress.enabled=true', 'api.ingress.host=svc.example.com', 'api.allowedHosts={lb.example.net}']);
    expect(wider.slice(4)).toEqual(['svc.example.com', 'lb.example.net']);
  });
});
