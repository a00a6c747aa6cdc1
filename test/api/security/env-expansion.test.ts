/**
 * Attack: a step's text reads the service's own environment (secrets the operator of svc set for svc).
 * SPEC 2.7: only PATH, HOME, LANG, TZ, SHELL and SVC_/LC_/DAG_ variables pass to steps, less svc's own
 * settings; the rest of the service's environment is for load-time expansion (DAG env, params
 * defaults) only. The reference prints nothing for `echo ${X}` when X is only in its environment.
 */
import { eventually } from '../../helpers/wait.js';
import { ADMIN_PASSWORD, SECRET, bearer, builtinServer, login, userWithRole } from '../auth/harness.js';

const SECRETISH = 'only-in-the-server-environment-7f3a';
const srv = builtinServer({ SECRETISH, SVC_MY_TEAM: 'team-a' });
let op: Record<string, string>;

beforeAll(async () => {
  srv.dag('leaky', `steps:
  - name: cmd
    command: echo "[$SECRETISH] [\${SECRETISH}] [$SVC_AUTH_TOKEN_SECRET] [\${SVC_AUTH_TOKEN_SECRET}] [\${SVC_DATA_DIR}\${SVC_DAGS_DIR}]"
    output: CMD
  - name: script
    script: |
      echo "[\${SECRETISH}] [$SVC_AUTH_TOKEN_SECRET]"
    output: SCRIPT
  - name: stepenv
    env:
      - S: "[\${SECRETISH}] [\${SVC_AUTH_TOKEN_SECRET}]"
    command: echo "$S"
    output: STEPENV
  - name: printenv
    command: sh -c 'env | grep -c -e SECRETISH -e SVC_AUTH_ -e SVC_DATA_DIR || true'
    output: PRINTENV
  - name: passed
    command: echo "[$SVC_MY_TEAM]"
    output: PASSED
`);
  srv.dag('holding', 'steps:\n  - name: hold\n    env:\n      - S: "${SECRETISH}"\n    command: sh -c \'echo "${SECRETISH} $SVC_MY_TEAM"; sleep 8\'\n');
  srv.dag('named', 'env:\n  - FROM_SERVER: ${SECRETISH}\nsteps:\n  - name: s\n    command: echo "[$FROM_SERVER]"\n    output: OUT\n');
  await srv.start();
  const admin = await login(srv, 'admin', ADMIN_PASSWORD);
  op = bearer((await userWithRole(srv, admin, 'op-env', 'operator')).token);
});
afterAll(() => srv.stop());

const outputsOf = async (fileName: string): Promise<Record<string, string>> => {
  const r = await srv.req('POST', `/dags/${fileName}/start-sync`, { timeout: 60 }, op);
  expect(r.status).toBe(200);
  return Object.fromEntries(r.body.dagRun.nodes.map((n: { step: { name: string }; output?: string }) => [n.step.name, n.output]));
};

// On kubernetes the service's environment is the operator's and the API server's: steps get none of it.
const kube = process.env.SVC_TEST_BACKEND === 'kubernetes';

test('a step\'s command, script and env print nothing of the server\'s own environment', async () => {
  const out = await outputsOf('leaky');
  expect(JSON.stringify(out)).not.toContain(SECRETISH);
  expect(JSON.stringify(out)).not.toContain(SECRET);
  expect(out).toMatchObject({ cmd: '[] [] [] [] []', script: '[] []', stepenv: '[] []', printenv: '0' });
  // an SVC_ variable that is no setting of svc's is passed (SPEC 2.7)
  expect(out.passed).toBe(kube ? '[]' : '[team-a]');
});

test('load time: a DAG env value may name a server variable (SPEC 2.7 "unless named in env")', async () => {
  expect((await outputsOf('named')).s).toBe(kube ? '[]' : `[${SECRETISH}]`);
});

// Kubernetes only: the embedded backend has no Pod spec.
if (kube) test('kubernetes: no step Pod spec holds the service\'s environment', async () => {
  const { kube: api } = (await import('../../testbed/helpers.js')).cluster();
  const ns = (await srv.kube!.env()).SVC_NAMESPACE;
  expect((await srv.req('POST', '/dags/holding/start', { dagRunId: 'hold-1' }, op)).status).toBe(200);
  const pods = await eventually(async () => {
    const list = await api.get<{ items: unknown[] }>(`/api/v1/namespaces/${ns}/pods`);
    return list.items.length > 0 ? list.items : undefined;
  }, 'a step Pod of holding');
  await srv.req('POST', '/dag-runs/holding/hold-1/stop', {}, op);
  await eventually(async () => {
    const r = await srv.req('GET', '/dag-runs/holding/hold-1', undefined, op);
    return r.status === 200 && ['aborted', 'succeeded', 'failed'].includes(r.body.dagRun.statusLabel) ? true : undefined;
  }, 'holding/hold-1 to end');
  const text = JSON.stringify(pods);
  expect(text).not.toContain(SECRETISH);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain('team-a');
});
