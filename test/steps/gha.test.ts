/**
 * The gha step type through the real embedded engine: act (built by hack/act.sh, or SVC_ACT_BIN) runs
 * local composite actions in containers of a real Podman API service, on the busybox test image, with
 * no registry and no network. Without podman or act the suite is skipped loudly, and fails under CI=true.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtServer, describeWith } from '../helpers/needs.js';
import { podmanSkipReason, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';
import { eventually } from '../helpers/wait.js';

const act = builtServer('act', 'act.sh', 'SVC_ACT_BIN');

/** A working directory holding composite actions (name -> its `runs.steps[0].run` script) with inputs `who` and `times`. */
function actionsDir(actions: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gha-work-'));
  for (const [name, run] of Object.entries(actions)) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'action.yml'), [
      `name: ${name}`,
      'inputs:',
      '  who: { description: whom, required: true }',
      '  times: { description: how many, default: "1" }',
      'runs:',
      '  using: composite',
      '  steps:',
      '    - shell: sh',
      '      env: { WHO: "${{ inputs.who }}", TIMES: "${{ inputs.times }}" }',
      '      run: |',
      ...run.split('\n').map((l) => `        ${l}`),
      '',
    ].join('\n'));
  }
  return dir;
}

describeWith('podman and act', podmanSkipReason() ?? act.skipReason(), 'gha steps on Podman', () => {
  let podman: Podman;
  const env = (): Record<string, string> => ({ SVC_ACT_BIN: act.binary()! });
  const hostBefore = process.env.DOCKER_HOST;

  /** Containers act made on this engine (running or not). */
  const actContainers = (): string[] => podman.cli(['ps', '-a', '--format', '{{.Names}}']).split('\n').filter((n) => n.startsWith('act-'));

  beforeAll(async () => {
    podman = await startPodman();
    // svc's own environment: where the runner finds the engine when the DAG does not say.
    process.env.DOCKER_HOST = podman.dockerHost;
  }, 60_000);
  afterAll(async () => {
    if (hostBefore === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = hostBefore;
    await podman?.stop();
  });

  test('a local composite action runs with params as inputs, in the working directory; its output is the step\'s stdout', async () => {
    const work = actionsDir({ greet: 'echo "hello $WHO x$TIMES"\necho "$WHO" > greeted.txt\necho "to stderr" >&2' });
    const r = await runSteps(`
params:
  - NAME: ada
steps:
  - name: greet
    type: gha
    dir: ${work}
    command: ./greet
    config: { runner: ${TEST_IMAGE} }
    params:
      who: \${NAME}
      times: 3
    output: GREETING
  - name: after
    command: echo "got \${GREETING}"
`, { env: env() });
    expect(r.status).toBe('succeeded');
    expect(await r.log('greet')).toBe('hello ada x3\nto stderr\n');
    expect(await r.log('greet', 'stderr')).toMatch(/Success - Main \.\/greet/);
    expect(await r.log('after')).toBe('got hello ada x3\nto stderr\n');
    // The working directory is the action's workspace (bind-mounted): what it writes is on the host.
    expect(readFileSync(join(work, 'greeted.txt'), 'utf8')).toBe('ada\n');
  }, 180_000);

  test('a failing action fails the step with act\'s error; a string of NAME=value pairs gives the inputs', async () => {
    const work = actionsDir({ fail: 'echo "trying $WHO"\nexit 3' });
    const r = await runSteps(`
steps:
  - name: fail
    type: gha
    dir: ${work}
    command: ./fail
    config: { runner: ${TEST_IMAGE} }
    params: who=bob
`, { env: env() });
    expect(r.status).toBe('failed');
    expect(r.node('fail').error).toBe("gha step: ./fail failed: exitcode '3': failure");
    expect(await r.log('fail')).toBe('trying bob\n');
    // act keeps a failed job's container unless asked: none is left running.
    expect(actContainers()).toEqual([]);
  }, 180_000);

  test('timeoutSec stops the action at once; act removes its container', async () => {
    const work = actionsDir({ slow: 'echo "started $WHO"\nsleep 120' });
    const started = Date.now();
    const r = await runSteps(`
steps:
  - name: slow
    type: gha
    dir: ${work}
    command: ./slow
    config: { runner: ${TEST_IMAGE} }
    params: { who: zed }
    timeoutSec: 25
`, { env: env() });
    expect(r.status).toBe('failed');
    expect(r.node('slow').error).toBe('step timed out after 25s');
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(await r.log('slow')).toBe('started zed\n');
    await eventually(async () => actContainers().length === 0, 'act to remove its container', 30_000, 500);
  }, 180_000);

  test('examples/steps/gha.yaml runs on the test image', async () => {
    const r = await runSteps(readFileSync('examples/steps/gha.yaml', 'utf8'), { env: env(), params: `WHO=eve RUNNER=${TEST_IMAGE} ACTIONS=${resolve('examples/steps')}` });
    expect(r.status).toBe('succeeded');
    expect(await r.log('show')).toBe('the action said hello, eve\nhello, eve\n');
  }, 180_000);

  test('no engine at DOCKER_HOST and no act are errors that name what is missing', async () => {
    const dag = (extraEnv: string): string => `
env:
${extraEnv}
steps:
  - { name: s, type: gha, command: ./a, config: { runner: ${TEST_IMAGE} } }
`;
    const noEngine = await runSteps(dag('  - DOCKER_HOST: unix:///nonexistent/engine.sock'), { env: env() });
    expect(noEngine.status).toBe('failed');
    expect(noEngine.node('s').error).toMatch(/^gha step: no container engine: DOCKER_HOST=unix:\/\/\/nonexistent\/engine\.sock names no socket/);

    const badAct = await runSteps(dag('  - X: y'), { env: { SVC_ACT_BIN: '/nonexistent/act' } });
    expect(badAct.node('s').error).toMatch(/^gha step: SVC_ACT_BIN=\/nonexistent\/act is not an executable file/);

    const before = process.env.SVC_ACT_BIN;
    delete process.env.SVC_ACT_BIN;
    try {
      const noAct = await runSteps(dag('  - PATH: /nonexistent'));
      expect(noAct.status).toBe('failed');
      expect(noAct.node('s').error).toMatch(/^gha step: act \(github\.com\/nektos\/act\) is not installed: no act on PATH and SVC_ACT_BIN is not set/);
    } finally {
      if (before !== undefined) process.env.SVC_ACT_BIN = before;
    }
  });
});
