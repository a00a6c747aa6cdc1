/**
 * `svc operator` on the test bed: every step execution is a Pod (the svc entry binary as PID 1), as a
 * user drives it over REST: outputs passed between steps, retries, node placement by workerSelector, a
 * step that cannot be placed and says why, stop, logs kept apart and kept after the Pods are gone, and
 * kubectl logs of a kept Pod.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/server.js';
import { kubectl } from '../testbed/helpers.js';
import { describeCluster } from './env.js';
import { finished, kubeServer, podsOf, start } from './servers.js';

describeCluster('the operator runs DagRuns as Pods', () => {
  const srv = kubeServer();
  let ns = '';
  beforeAll(async () => {
    await srv.start();
    ns = srv.server.namespace!;
  });
  afterAll(() => srv.stop());

  test('a chain and a graph pass outputs; stdout and stderr stay apart and outlive the Pods', async () => {
    srv.dag('graph', [
      'steps:',
      '  - name: first', '    command: echo alpha', '    output: A',
      '  - name: second', '    command: echo beta', '    output: B',
      '  - name: join', '    depends: [first, second]', '    script: |', '      echo "joined $A+$B"', '      echo "a warning" >&2',
    ].join('\n'));
    const id = await start(srv, 'graph');
    const run = await finished(srv, 'graph', id);
    expect(run.statusLabel).toBe('succeeded');
    const log = async (stream: string) => (await srv.get(`/dag-runs/graph/${id}/steps/join/log?stream=${stream}`)).body.content;
    expect(await log('stdout')).toBe('joined alpha+beta');
    expect(await log('stderr')).toBe('a warning');
    expect((await srv.get(`/dag-runs/graph/${id}/outputs`)).body.outputs).toMatchObject({ a: 'alpha', b: 'beta' });
    // Harvested Pods are removed; what they wrote stays.
    await eventually(async () => (await podsOf(ns)).length === 0 || undefined, 'the step Pods to be removed');
    expect(await log('stdout')).toBe('joined alpha+beta');
  });

  test('sub-DAG calls and parallel items are child DagRuns owned by the parent, their steps Pods too', async () => {
    srv.dag('parent', [
      'steps:',
      '  - name: fan', '    call: child', '    parallel: { items: [x, y] }', '    params: "WHO=${ITEM}"',
      '---',
      'name: child', 'params: [WHO=none]', 'steps:', '  - name: hello', '    command: echo "child $WHO"', '    output: OUT',
    ].join('\n'));
    const id = await start(srv, 'parent');
    expect((await finished(srv, 'parent', id)).statusLabel).toBe('succeeded');
    const parent = JSON.parse((await kubectl(['get', 'dagruns', '-n', ns, '-l', `svc.io/dag=parent,svc.io/dag-run=${id}`, '-o', 'json'])).stdout).items[0];
    const children = JSON.parse((await kubectl(['get', 'dagruns', '-n', ns, '-l', `svc.io/parent-dag-run=${parent.metadata.name}`, '-o', 'json'])).stdout).items;
    expect(children).toHaveLength(2);
    for (const c of children) {
      expect(c.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'DagRun', name: parent.metadata.name, uid: parent.metadata.uid, controller: true })]);
      expect(c.status.phase).toBe('succeeded');
    }
    expect(children.map((c: any) => c.status.run.outputs.out).sort()).toEqual(['child x', 'child y']);
  });

  test('user code the engine evaluates runs in Pods too: backquotes, preconditions, repeat conditions, parallel items', async () => {
    // SVC_TESTBED_NODE exists only in a Pod's environment (the test bed's agents set it), never in the
    // operator's; printenv reads it where the command runs (a $VAR would be expanded by the engine first).
    srv.dag('probed', [
      'env:', '  - WHERE: "`printenv SVC_TESTBED_NODE`"', '  - ITEMS: "`printenv SVC_TESTBED_NODE >/dev/null && echo p q`"',
      'preconditions:', '  - condition: "`printenv SVC_TESTBED_NODE`"', '    expected: "re:^node-[ab]$"',
      'steps:',
      '  - name: env', '    command: echo "in-$WHERE"', '    output: WHERE_OUT',
      '  - name: skipped', '    depends: []', '    command: echo never', '    preconditions:', '      - condition: "`printenv SVC_TESTBED_NODE`"', '        expected: operator',
      '  - name: poll', '    depends: []', '    command: echo tick', '    repeatPolicy:', '      repeat: until', '      condition: printenv SVC_TESTBED_NODE', '      intervalSec: 0', '      limit: 3',
      '  - name: items', '    depends: []', '    call: each', '    parallel: ${ITEMS}', '    params: "WHO=${ITEM}"',
      '---', 'name: each', 'params: [WHO=x]', 'steps:', '  - name: say', '    command: echo "$WHO"',
    ].join('\n'));
    const id = await start(srv, 'probed');
    const run = await finished(srv, 'probed', id);
    const node = (n: string) => run.nodes.find((x: any) => x.step.name === n);
    expect(run.statusLabel).toBe('succeeded');
    expect(node('env').output).toMatch(/^in-node-[ab]$/);
    expect(node('skipped').statusLabel).toBe('skipped');
    expect(node('poll').doneCount).toBe(1);
    expect(node('items').statusLabel).toBe('succeeded');
    expect(node('items').subRuns).toHaveLength(2);
  });

  test('a step that exits non-zero is retried by its retryPolicy, in a new Pod', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-op-'));
    srv.dag('flaky', [
      'steps:',
      '  - name: flaky',
      `    command: sh -c 'echo try >> ${dir}/tries; [ $(wc -l < ${dir}/tries) -ge 2 ]'`,
      '    retryPolicy: { limit: 3, intervalSec: 0 }',
    ].join('\n'));
    const id = await start(srv, 'flaky');
    const run = await finished(srv, 'flaky', id);
    expect(run.statusLabel).toBe('succeeded');
    expect(run.nodes[0].retryCount).toBe(1);
    expect(readFileSync(join(dir, 'tries'), 'utf8')).toBe('try\ntry\n');
  });

  test('workerSelector pins a step to the matching node; one no node matches waits and says why, and stops', async () => {
    srv.dag('pinned', ['steps:', '  - name: on-b', '    command: echo $SVC_TESTBED_NODE', '    workerSelector: { svc.testbed/pool: b }', '    output: NODE'].join('\n'));
    const id = await start(srv, 'pinned');
    expect((await finished(srv, 'pinned', id)).nodes[0].output).toBe('node-b');

    srv.dag('nowhere', ['workerSelector: { svc.testbed/pool: none }', 'steps:', '  - name: lost', '    command: echo never'].join('\n'));
    const lost = await start(srv, 'nowhere');
    const said = await eventually(async () => {
      const c = (await srv.get(`/dag-runs/nowhere/${lost}/steps/lost/log?stream=stderr`)).body.content as string | undefined;
      return c?.includes('Unschedulable') ? c : undefined;
    }, 'the step log to say why it waits', 30_000);
    expect(said).toMatch(/didn't match Pod's node affinity\/selector/);
    expect((await srv.get(`/dag-runs/nowhere/${lost}`)).body.dagRun.statusLabel).toBe('running');
    expect((await podsOf(ns)).find((p) => p.metadata.labels['svc.io/step'] === 'lost')?.spec.nodeSelector).toEqual({ 'svc.testbed/pool': 'none' });
    expect((await srv.post(`/dag-runs/nowhere/${lost}/stop`)).status).toBe(200);
    expect((await finished(srv, 'nowhere', lost)).statusLabel).toBe('aborted');
  });

  test('a step Pod deleted while it runs fails the step; its retryPolicy runs it again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-op-'));
    srv.dag('deleted', [
      'steps:',
      '  - name: victim',
      `    command: sh -c 'echo x >> ${dir}/tries; echo started; [ $(wc -l < ${dir}/tries) -ge 2 ] || sleep 60'`,
      '    retryPolicy: { limit: 1, intervalSec: 2 }',
    ].join('\n'));
    const id = await start(srv, 'deleted');
    const pod = await eventually(async () => {
      const p = (await podsOf(ns)).find((x) => x.metadata.labels['svc.io/step'] === 'victim' && x.metadata.labels['svc.io/dag-run'] === id);
      return p && ((await srv.get(`/dag-runs/deleted/${id}/steps/victim/log?stream=stdout`)).body.content as string | undefined)?.includes('started') ? p : undefined;
    }, 'the first attempt to run');
    expect((await kubectl(['delete', 'pod', '-n', ns, pod.metadata.name, '--wait=false'])).code).toBe(0);
    await eventually(async () => ((await srv.get(`/dag-runs/deleted/${id}`)).body.dagRun.nodes[0].error as string).includes('was deleted while it ran') || undefined, 'the step to say its Pod was deleted');
    const run = await finished(srv, 'deleted', id, 60_000);
    expect(run.statusLabel).toBe('succeeded');
    expect(run.nodes[0].retryCount).toBe(1);
    expect(readFileSync(join(dir, 'tries'), 'utf8')).toBe('x\nx\n');
  });

  test('stop of a running step sends its signalOnStop through the entry; the run is aborted', async () => {
    srv.dag('long', [
      'steps:',
      '  - name: wait',
      `    command: sh -c 'trap "echo got-usr1; exit 9" USR1; echo started; sleep 60 & wait'`,
      '    signalOnStop: SIGUSR1',
    ].join('\n'));
    const id = await start(srv, 'long');
    await eventually(async () => ((await srv.get(`/dag-runs/long/${id}/steps/wait/log?stream=stdout`)).body.content as string | undefined)?.includes('started') || undefined, 'the step to start');
    expect((await srv.post(`/dag-runs/long/${id}/stop`)).status).toBe(200);
    const run = await finished(srv, 'long', id, 30_000);
    expect(run.statusLabel).toBe('aborted');
    expect((await srv.get(`/dag-runs/long/${id}/steps/wait/log?stream=stdout`)).body.content).toBe('started\ngot-usr1');
  });
});

describeCluster('a DagRun created with kubectl that names a Dag', () => {
  const srv = kubeServer();
  beforeAll(() => srv.start());
  afterAll(() => srv.stop());

  test('starts that Dag once, with the object name as run id, and answers in the object\'s status', async () => {
    const ns = srv.server.namespace!;
    srv.dag('greet', ['params: [WHO=nobody]', 'steps:', '  - name: hi', '    command: echo "hi $WHO"', '    output: SAID'].join('\n'));
    await srv.get('/dags'); // the Dag is written
    const request = ['apiVersion: svc.io/v1alpha1', 'kind: DagRun', 'metadata: { name: nightly-1 }', 'spec: { dag: greet, params: "WHO=kubectl" }'].join('\n');
    expect((await kubectl(['apply', '-n', ns, '-f', '-'], { input: request })).code).toBe(0);
    const answered = await eventually(async () => {
      const o = JSON.parse((await kubectl(['get', 'dagrun', 'nightly-1', '-n', ns, '-o', 'json'])).stdout);
      return o.status?.startedRun ? o : undefined;
    }, 'the request to be answered', 30_000);
    expect(answered.status.phase).toBe('started');
    expect(answered.status.conditions[0]).toMatchObject({ type: 'Started', status: 'True', reason: 'RunCreated' });
    const run = await finished(srv, 'greet', 'nightly-1');
    expect(run.statusLabel).toBe('succeeded');
    expect(run.nodes[0].output).toBe('hi kubectl');
    expect(answered.status.startedRun).toBe(JSON.parse((await kubectl(['get', 'dagruns', '-n', ns, '-l', 'svc.io/dag-run=nightly-1', '-o', 'json'])).stdout).items[0].metadata.name);
    // Applied again (a GitOps sync): nothing new starts.
    expect((await kubectl(['apply', '-n', ns, '-f', '-'], { input: request })).code).toBe(0);
    expect((await srv.get('/dag-runs?name=greet')).body.dagRuns).toHaveLength(1);
  });

  test('a request naming no Dag fails visibly, with the reason', async () => {
    const ns = srv.server.namespace!;
    const request = ['apiVersion: svc.io/v1alpha1', 'kind: DagRun', 'metadata: { name: lost-1 }', 'spec: { dag: no-such-dag }'].join('\n');
    expect((await kubectl(['apply', '-n', ns, '-f', '-'], { input: request })).code).toBe(0);
    const o = await eventually(async () => {
      const x = JSON.parse((await kubectl(['get', 'dagrun', 'lost-1', '-n', ns, '-o', 'json'])).stdout);
      return x.status?.phase === 'failed' ? x : undefined;
    }, 'the request to fail', 30_000);
    expect(o.status.conditions[0]).toMatchObject({ type: 'Started', status: 'False', reason: 'CannotStart', message: 'Dag no-such-dag not found' });
  });
});

describeCluster('secrets in step Pods', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  beforeAll(() => srv.start());
  afterAll(() => srv.stop());

  test('a file secret read in a Pod reaches the step through a Secret, never in the Pod spec; masked in every log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-secret-'));
    const value = 'hunter2-kube-secret';
    writeFileSync(join(dir, 'token'), `${value}\n`);
    srv.dag('secretive', [
      'secrets:', `  - { name: TOKEN, provider: file, key: ${join(dir, 'token')} }`,
      'steps:', '  - name: leak', '    command: sh -c \'echo "token=$TOKEN"; echo "err $TOKEN" >&2\'',
    ].join('\n'));
    const id = await start(srv, 'secretive');
    expect((await finished(srv, 'secretive', id)).statusLabel).toBe('succeeded');
    const log = async (stream: string) => (await srv.get(`/dag-runs/secretive/${id}/steps/leak/log?stream=${stream}`)).body.content;
    expect(await log('stdout')).toBe('token=*******');
    expect(await log('stderr')).toBe('err *******');
    const ns = srv.server.namespace!;
    const pod = (await podsOf(ns)).find((p) => p.metadata.labels['svc.io/dag-run'] === id && p.metadata.labels['svc.io/step'] === 'leak')!;
    const podJson = (await kubectl(['get', 'pod', '-n', ns, pod.metadata.name, '-o', 'json'])).stdout;
    expect(podJson).not.toContain(value);
    expect(JSON.parse(podJson).spec.containers[0].env).toContainEqual({ name: 'TOKEN', valueFrom: { secretKeyRef: { name: pod.metadata.name, key: expect.any(String) } } });
    // Neither the step's Pod nor the Pod that read the file shows it in kubectl logs.
    const runPods = (await podsOf(ns)).filter((p) => p.metadata.labels['svc.io/dag-run'] === id);
    expect(runPods.length).toBeGreaterThan(1);
    for (const p of runPods) expect((await kubectl(['logs', '-n', ns, p.metadata.name])).stdout).not.toContain(value);
    // The execution's Secret is removed once its result is in (the DagRun owns it until then).
    await eventually(async () => /NotFound/.test((await kubectl(['get', 'secret', '-n', ns, pod.metadata.name])).stderr) || undefined, 'the execution\'s Secret to go', 20_000);
    expect(JSON.stringify((await srv.get(`/dag-runs/secretive/${id}`)).body)).not.toContain(value);
  });
});

describeCluster('GET /workers on kubernetes: the Nodes', () => {
  const srv = kubeServer();
  beforeAll(() => srv.start());
  afterAll(() => srv.stop());

  test('each Node with its labels and a healthy heartbeat (its Lease); a running step is a task of its node', async () => {
    srv.dag('busy', ['steps:', '  - name: hold', "    command: sh -c 'echo up; sleep 4'", '    workerSelector: { svc.testbed/pool: a }'].join('\n'));
    const id = await start(srv, 'busy');
    const workers = await eventually(async () => {
      const w = (await srv.get('/workers')).body.workers as Array<{ id: string; running_tasks: Array<{ dagRunId: string }> }>;
      return w.find((x) => x.id === 'node-a')?.running_tasks.some((t) => t.dagRunId === id) ? w : undefined;
    }, 'the step to run on node-a', 30_000);
    const a = workers.find((w) => w.id === 'node-a') as any;
    expect(a.labels).toMatchObject({ 'svc.testbed/pool': 'a', 'kubernetes.io/hostname': 'node-a' });
    expect(a.health_status).toBe('WORKER_HEALTH_STATUS_HEALTHY');
    expect(Date.now() - Date.parse(a.last_heartbeat)).toBeLessThan(10_000);
    expect(a.running_tasks).toEqual([{ dagName: 'busy', dagRunId: id, rootDagRunName: 'busy', rootDagRunId: id, parentDagRunName: '', parentDagRunId: '', startedAt: expect.any(String) }]);
    expect(workers.find((w) => w.id === 'node-b')?.running_tasks).toEqual([]);
    await finished(srv, 'busy', id);
    expect(((await srv.get('/workers')).body.workers as any[]).every((w) => w.running_tasks.length === 0)).toBe(true);
  });
});

describeCluster('step Pods kept for debugging', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  beforeAll(() => srv.start());
  afterAll(() => srv.stop());

  test('kubectl logs of a step Pod shows its output; the Pod is owned by its DagRun and labelled', async () => {
    srv.dag('kept', ['steps:', '  - name: say', '    command: sh -c "echo to-out; echo to-err >&2"'].join('\n'));
    const id = await start(srv, 'kept');
    expect((await finished(srv, 'kept', id)).statusLabel).toBe('succeeded');
    const ns = srv.server.namespace!;
    const pods = await podsOf(ns);
    expect(pods).toHaveLength(1);
    const pod = pods[0]!;
    expect(pod.metadata.labels).toMatchObject({ 'svc.io/step': 'say', 'svc.io/attempt': '0', 'svc.io/dag': 'kept' });
    const logs = await kubectl(['logs', '-n', ns, pod.metadata.name]);
    expect(logs.stdout.split('\n').sort().filter(Boolean)).toEqual(['to-err', 'to-out']);
    const owner = JSON.parse((await kubectl(['get', 'pod', '-n', ns, pod.metadata.name, '-o', 'jsonpath={.metadata.ownerReferences}'])).stdout);
    expect(owner[0]).toMatchObject({ kind: 'DagRun', controller: true });
  });
});

describeCluster('env secrets on the operator: the keys of the Secret SVC_SECRET_ENV_FROM names', () => {
  const srv = kubeServer({ SVC_SECRET_ENV_FROM: 'svc-step-env' });
  beforeAll(() => srv.start());
  afterAll(() => srv.stop());

  test('a key of the Secret reaches the step, masked; a missing key or Secret fails the run, saying which', async () => {
    const ns = srv.server.namespace!;
    const value = 'env-secret-from-a-kube-secret';
    const dag = (key: string) => ['secrets:', `  - { name: TOKEN, provider: env, key: ${key} }`, 'steps:', '  - name: use', '    command: sh -c \'echo "token=$TOKEN len=${#TOKEN}"\''].join('\n');
    srv.dag('env-secret', dag('API_TOKEN'));
    const early = await start(srv, 'env-secret');
    expect((await finished(srv, 'env-secret', early)).error).toMatch(/the Secret svc-step-env \(SVC_SECRET_ENV_FROM\) does not exist/);
    expect((await kubectl(['create', 'secret', 'generic', 'svc-step-env', '-n', ns, `--from-literal=API_TOKEN=${value}`])).code).toBe(0);
    const id = await start(srv, 'env-secret');
    expect((await finished(srv, 'env-secret', id)).statusLabel).toBe('succeeded');
    expect((await srv.get(`/dag-runs/env-secret/${id}/steps/use/log?stream=stdout`)).body.content).toBe(`token=******* len=${value.length}`);
    srv.dag('env-missing', dag('NOT_THERE'));
    const missing = await start(srv, 'env-missing');
    const run = await finished(srv, 'env-missing', missing);
    expect(run.statusLabel).toBe('failed');
    expect(run.error).toContain('no key NOT_THERE in the Secret svc-step-env');
  });
});

describeCluster('a large captured output on the operator', () => {
  const srv = kubeServer();
  beforeAll(() => srv.start());
  afterAll(() => srv.stop());

  test('a 500 KB output is kept once in the DagRun status (not three times, over etcd\'s budget): the run succeeds', async () => {
    srv.dag('bigout', ['steps:', '  - name: big', '    command: sh -c \'head -c 500000 /dev/zero | tr "\\\\0" x\'', '    output: BIG'].join('\n'));
    const id = await start(srv, 'bigout');
    const run = await finished(srv, 'bigout', id);
    expect([run.statusLabel, run.error]).toEqual(['succeeded', '']);
    expect((await srv.get(`/dag-runs/bigout/${id}/outputs`)).body.outputs.big).toBe('x'.repeat(500_000));
    const stored = JSON.parse((await kubectl(['get', 'dagruns', '-n', srv.server.namespace!, '-l', `svc.io/dag-run=${id}`, '-o', 'json'])).stdout).items[0];
    expect(stored.status.run.valueRefs).toEqual({ variables: { BIG: 'big' }, outputs: { big: 'big' } });
  }, 90_000);

  test('an output the status cannot hold even once ends the run failed, saying why, rather than never saved', async () => {
    srv.dag('hugeout', ['maxOutputSize: 3000000', 'steps:', '  - name: huge', '    command: sh -c \'head -c 1200000 /dev/zero | tr "\\\\0" y\'', '    output: HUGE'].join('\n'));
    const id = await start(srv, 'hugeout');
    const run = await finished(srv, 'hugeout', id);
    expect(run.statusLabel).toBe('failed');
    expect(run.error).toMatch(/over the 1048576-byte limit of a DagRun status.*captured values dropped/);
  }, 90_000);
});
