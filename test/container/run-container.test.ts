/** A DAG-level container (SPEC 2.5): one container for the run, each step exec'd inside it, removed at the end. */
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';
import { eventually } from '../helpers/wait.js';

describePodman('DAG-level container (embedded, Podman)', () => {
  let pm: Podman;
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => { await pm?.stop(); });

  const run = (yaml: string, env: Record<string, string> = {}) => runSteps(yaml, { env: { DOCKER_HOST: pm.dockerHost, ...env } });

  test('20 short steps run in one container, each with its own logs; the container goes at the end', async () => {
    const steps = Array.from({ length: 20 }, (_, i) => `  - name: s${i}\n    command: echo out${i} $(hostname); echo err${i} >&2`).join('\n');
    const r = await run(`container:\n  image: ${TEST_IMAGE}\nsteps:\n${steps}\n`);
    expect(r.status).toBe('succeeded');
    const hosts = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const out = await r.log(`s${i}`);
      expect(out).toMatch(new RegExp(`^out${i} \\S+\\n$`));
      hosts.add(out.split(' ')[1]!.trim());
      expect(await r.log(`s${i}`, 'stderr')).toBe(`err${i}\n`);
    }
    expect(hosts.size).toBe(1);
    await eventually(async () => (await pm.svcContainers()).every((c) => c.Labels['svc.io/dag-run'] !== r.run.spec.dagRunId), 'the run container removed');
  }, 120_000);

  test('a failing step reports its exit code; the steps after it do not run', async () => {
    const r = await run(`container:\n  image: ${TEST_IMAGE}\nsteps:\n  - name: bad\n    command: echo before; exit 7\n  - name: after\n    command: echo never\n`);
    expect(r.status).toBe('failed');
    expect(r.node('bad')).toMatchObject({ status: 2, exitCode: 7 });
    expect(await r.log('bad')).toBe('before\n');
  }, 60_000);

  test('the block\'s image, name and volumes read the run\'s params and env; the container still goes at the end', async () => {
    const r = await run(`params:\n  - IMG: ${TEST_IMAGE}\nenv:\n  - SUFFIX: from-env\ncontainer:\n  image: \${IMG}\n  name: svc-param-\${SUFFIX}-\${DAG_RUN_ID}\n  env:\n    - WHERE=\${SUFFIX}\nsteps:\n  - name: a\n    command: echo $WHERE\n`);
    expect(r.status).toBe('succeeded');
    expect(await r.log('a')).toBe('from-env\n');
    await eventually(async () => (await pm.svcContainers()).every((c) => c.Labels['svc.io/dag-run'] !== r.run.spec.dagRunId), 'the run container removed');
  }, 60_000);
});
