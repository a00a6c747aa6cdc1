/** Pods on the node agents: status, exit codes, logs, scheduling, init containers, env, deadlines, deletion. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cluster, createNamespace, createPod, deleteNamespace, describeCluster, eventually, getPod, kubectl, sh, waitPhase } from './helpers.js';

// emptyDir volume "work": on the test bed under the Pod's scratch dir ($SVC_TESTBED_SCRATCH/work), elsewhere
// mounted at /work; the same script works on both.
const WORK = '$' + '{SVC_TESTBED_SCRATCH:-}/work';
const mount = { volumeMounts: [{ name: 'work', mountPath: '/work' }] };
const onTestbed = (): boolean => cluster().state !== undefined;

describeCluster('Pods run by the node agents', () => {
  let ns = '';
  beforeAll(async () => {
    ns = await createNamespace('pods');
  });
  afterAll(() => deleteNamespace(ns));

  test('a failing container: Failed, exit code 3, stdout and stderr in kubectl logs', async () => {
    await createPod(ns, { metadata: { name: 'fail3' }, spec: { restartPolicy: 'Never', containers: [sh('main', 'echo out; echo err >&2; exit 3')] } });
    const pod = await waitPhase(ns, 'fail3', ['Failed', 'Succeeded']);
    expect(pod.status?.phase).toBe('Failed');
    const term = pod.status?.containerStatuses?.[0]?.state.terminated;
    expect(term).toMatchObject({ exitCode: 3, reason: 'Error' });
    expect(term?.startedAt).toBeTruthy();
    expect(term?.finishedAt).toBeTruthy();
    const logs = await kubectl(['logs', '-n', ns, 'fail3']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toBe('out\nerr\n');
  });

  test('Pending, then Running with startedAt, then Succeeded', async () => {
    await createPod(ns, { metadata: { name: 'ok' }, spec: { restartPolicy: 'Never', containers: [sh('main', 'sleep 1.5; echo done')] } });
    const running = await waitPhase(ns, 'ok', ['Running']);
    expect(running.status?.containerStatuses?.[0]?.state.running?.startedAt).toBeTruthy();
    expect(running.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    const done = await waitPhase(ns, 'ok', ['Succeeded', 'Failed']);
    expect(done.status?.phase).toBe('Succeeded');
    expect(done.status?.containerStatuses?.[0]?.state.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  });

  test('a nodeSelector pins the Pod to the matching node; an unmatched one stays Pending, Unschedulable', async () => {
    if (cluster().state) {
      await createPod(ns, { metadata: { name: 'pinned' }, spec: { nodeSelector: { 'svc.testbed/pool': 'b' }, restartPolicy: 'Never', containers: [sh('main', 'echo $SVC_TESTBED_NODE')] } });
      const pinned = await waitPhase(ns, 'pinned', ['Succeeded']);
      expect(pinned.spec.nodeName).toBe('node-b');
      expect((await kubectl(['logs', '-n', ns, 'pinned'])).stdout).toBe('node-b\n');
    }
    await createPod(ns, { metadata: { name: 'nowhere' }, spec: { nodeSelector: { 'svc.testbed/pool': 'nope' }, containers: [sh('main', 'true')] } });
    const cond = await eventually('PodScheduled=False', async () => {
      const p = await getPod(ns, 'nowhere');
      return p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
    });
    expect(cond.reason).toBe('Unschedulable');
    expect(cond.message).toMatch(/didn't match Pod's node affinity\/selector/);
    const p = await getPod(ns, 'nowhere');
    expect(p.status?.phase).toBe('Pending');
    expect(p.spec.nodeName).toBeUndefined();
  });

  test('init containers run in order before the app container, sharing an emptyDir', async () => {
    await createPod(ns, {
      metadata: { name: 'inits' },
      spec: {
        restartPolicy: 'Never',
        volumes: [{ name: 'work', emptyDir: {} }],
        initContainers: [sh('first', `echo one > ${WORK}/order; sleep 0.3`, mount), sh('second', `echo two >> ${WORK}/order`, mount)],
        containers: [sh('main', `cat ${WORK}/order`, mount)],
      },
    });
    const pod = await waitPhase(ns, 'inits', ['Succeeded', 'Failed']);
    expect(pod.status?.phase).toBe('Succeeded');
    const [first, second] = pod.status?.initContainerStatuses ?? [];
    expect(first?.state.terminated?.exitCode).toBe(0);
    expect(Date.parse(second?.state.terminated?.startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(first?.state.terminated?.finishedAt ?? ''));
    expect((await kubectl(['logs', '-n', ns, 'inits'])).stdout).toBe('one\ntwo\n');
  });

  test('a failing init container fails the Pod (restartPolicy Never) and the app never starts', async () => {
    await createPod(ns, { metadata: { name: 'badinit' }, spec: { restartPolicy: 'Never', initContainers: [sh('init', 'exit 2')], containers: [sh('main', 'echo never')] } });
    const pod = await waitPhase(ns, 'badinit', ['Failed', 'Succeeded']);
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.initContainerStatuses?.[0]?.state.terminated?.exitCode).toBe(2);
    expect(pod.status?.containerStatuses?.[0]?.state.waiting).toBeTruthy();
  });

  test('env: values, $(VAR) expansion, Secret and ConfigMap refs, envFrom, fieldRef; workingDir', async () => {
    const { kube } = cluster();
    await kube.post(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { password: 'hunter2' } });
    await kube.post(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { mode: 'fast', LEVEL: 'debug' } });
    await createPod(ns, {
      metadata: { name: 'envs', labels: { app: 'envs' } },
      spec: {
        restartPolicy: 'Never',
        containers: [
          sh('main', 'echo "$GREETING|$PASSWORD|$MODE|$CFG_LEVEL|$POD|$APP|$(pwd)"', {
            workingDir: '/svc-testbed-nonexistent/work',
            envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'c' } }],
            env: [
              { name: 'NAME', value: 'world' },
              { name: 'GREETING', value: 'hello $(NAME)' },
              { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 's', key: 'password' } } },
              { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'c', key: 'mode' } } },
              { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'APP', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
            ],
          }),
        ],
      },
    });
    await waitPhase(ns, 'envs', ['Succeeded']);
    const out = (await kubectl(['logs', '-n', ns, 'envs'])).stdout.trim();
    const values = out.slice(0, out.lastIndexOf('|'));
    const cwd = out.slice(out.lastIndexOf('|') + 1);
    expect(values).toBe('hello world|hunter2|fast|debug|envs|envs');
    if (onTestbed()) {
      // A workingDir the host lacks is made under the Pod's scratch dir, not on the host.
      expect(cwd.endsWith('/rootfs/svc-testbed-nonexistent/work')).toBe(true);
      expect(fs.existsSync('/svc-testbed-nonexistent')).toBe(false);
    } else {
      expect(cwd).toBe('/svc-testbed-nonexistent/work');
    }
  });

  test('a missing Secret keeps the container waiting with CreateContainerConfigError until it appears', async () => {
    await createPod(ns, { metadata: { name: 'needs-secret' }, spec: { restartPolicy: 'Never', containers: [sh('main', 'echo $TOKEN', { env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'later', key: 'token' } } }] })] } });
    await eventually('CreateContainerConfigError', async () => (await getPod(ns, 'needs-secret')).status?.containerStatuses?.[0]?.state.waiting?.reason === 'CreateContainerConfigError');
    await cluster().kube.post(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'later' }, stringData: { token: 't0k3n' } });
    await waitPhase(ns, 'needs-secret', ['Succeeded']);
    expect((await kubectl(['logs', '-n', ns, 'needs-secret'])).stdout).toBe('t0k3n\n');
  });

  test('activeDeadlineSeconds fails a Pod that runs too long', async () => {
    await createPod(ns, { metadata: { name: 'deadline' }, spec: { activeDeadlineSeconds: 2, restartPolicy: 'Never', containers: [sh('main', 'sleep 60')] } });
    const pod = await waitPhase(ns, 'deadline', ['Failed', 'Succeeded'], 20000);
    expect(pod.status?.phase).toBe('Failed');
    expect(pod.status?.reason).toBe('DeadlineExceeded');
  });

  test('restartPolicy OnFailure restarts a crashing container; logs --previous shows the earlier run', async () => {
    const script = `n=$(cat ${WORK}/runs 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${WORK}/runs; echo run $n; [ $n -ge 2 ]`;
    await createPod(ns, { metadata: { name: 'crashy' }, spec: { restartPolicy: 'OnFailure', volumes: [{ name: 'work', emptyDir: {} }], containers: [sh('main', script, mount)] } });
    const pod = await waitPhase(ns, 'crashy', ['Succeeded', 'Failed'], 30000);
    expect(pod.status?.phase).toBe('Succeeded');
    expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    expect((await kubectl(['logs', '-n', ns, 'crashy'])).stdout).toBe('run 2\n');
    expect((await kubectl(['logs', '-n', ns, 'crashy', '--previous'])).stdout).toBe('run 1\n');
  });

  // The containers leave marks in a host directory: test bed only.
  (onTestbed() ? test : test.skip)('deletion sends SIGTERM, waits the grace period, then kills, and removes the Pod', async () => {
    const marks = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-term-'));
    // One container handles SIGTERM and exits; the other ignores it and is killed after the grace period.
    await createPod(ns, {
      metadata: { name: 'term' },
      spec: {
        terminationGracePeriodSeconds: 3,
        containers: [
          sh('polite', `trap 'echo got TERM > ${marks}/polite; exit 0' TERM; while true; do sleep 0.1; done`),
          sh('stubborn', `trap 'echo ignoring TERM > ${marks}/stubborn' TERM; while true; do sleep 0.1; done`),
        ],
      },
    });
    await eventually('both containers running', async () => {
      const p = await getPod(ns, 'term');
      return p.status?.containerStatuses?.every((c) => c.state.running) === true && p.status.containerStatuses.length === 2;
    });
    await sleep(300); // let the shells install their traps
    const t0 = Date.now();
    const del = await kubectl(['delete', 'pod', '-n', ns, 'term', '--wait=true', '--timeout=30s']);
    const took = Date.now() - t0;
    expect(del.code).toBe(0);
    expect(fs.readFileSync(path.join(marks, 'polite'), 'utf8')).toBe('got TERM\n');
    expect(fs.readFileSync(path.join(marks, 'stubborn'), 'utf8')).toBe('ignoring TERM\n');
    expect(took).toBeGreaterThanOrEqual(2500); // the stubborn one lasted the grace period
    expect(took).toBeLessThan(15000);
    await expect(getPod(ns, 'term')).rejects.toMatchObject({ code: 404 });
    fs.rmSync(marks, { recursive: true, force: true });
  });
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
