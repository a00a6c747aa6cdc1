/** Stopping container steps: signalOnStop reaches the command (its trap runs), then the step ends; timeouts kill. */
import { NodeStatus, RunStatus } from '../../src/core/run/status.js';
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';
import { eventually } from '../helpers/wait.js';
import { startRun } from './live-run.js';

describePodman('stopping container steps (embedded, Podman)', () => {
  let pm: Podman;
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => { await pm?.stop(); });

  const TRAP = `trap 'echo got INT; exit 9' INT; echo started; sleep 60 & wait`;

  test.each([
    ['a DAG-level container', `container:\n  image: ${TEST_IMAGE}\nsteps:\n  - name: hold\n    signalOnStop: SIGINT\n    command: ${JSON.stringify(TRAP)}\n`],
    ['a step-level container', `steps:\n  - name: hold\n    signalOnStop: SIGINT\n    container:\n      image: ${TEST_IMAGE}\n    command: ${JSON.stringify(TRAP)}\n`],
  ])('a stop sends signalOnStop to the step in %s: its trap runs and the run ends aborted', async (_, yaml) => {
    const r = await startRun(yaml, { DOCKER_HOST: pm.dockerHost });
    await eventually(async () => (await r.log('hold')).includes('started'), 'the step started', 60_000);
    await r.runs.stop(r.key);
    const final = await r.done;
    expect(final.status.run.status).toBe(RunStatus.Aborted);
    expect(final.status.run.nodes[0]!.status).toBe(NodeStatus.Aborted);
    expect(await r.log('hold')).toBe('started\ngot INT\n');
    await eventually(async () => (await pm.svcContainers()).every((c) => c.Labels['svc.io/dag-run'] !== r.key.dagRunId), 'the containers removed', 30_000);
  }, 90_000);

  test('a step that ignores its stop signal is killed after the grace', async () => {
    const yaml = `maxCleanUpTimeSec: 1\ncontainer:\n  image: ${TEST_IMAGE}\nsteps:\n  - name: hold\n    command: trap '' TERM; echo started; while :; do sleep 1; done\n`;
    const r = await startRun(yaml, { DOCKER_HOST: pm.dockerHost });
    await eventually(async () => (await r.log('hold')).includes('started'), 'the step started', 60_000);
    await r.runs.stop(r.key);
    const final = await r.done;
    expect(final.status.run.status).toBe(RunStatus.Aborted);
  }, 90_000);

  test('timeoutSec ends a container step (exit 124, timed out)', async () => {
    const r = await runSteps(`container:\n  image: ${TEST_IMAGE}\nsteps:\n  - name: slow\n    timeoutSec: 1\n    command: sleep 60\n`, { env: { DOCKER_HOST: pm.dockerHost } });
    expect(r.status).toBe('failed');
    expect(r.node('slow')).toMatchObject({ exitCode: 124, error: expect.stringContaining('timed out') });
  }, 90_000);
});
