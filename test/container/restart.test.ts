/**
 * A restarted engine adopts the container steps the previous one began (its launcher is a new instance
 * reading the same records): it waits for an exec still running, reads how one ended, goes on with the
 * next commands of a step, and never runs a command twice.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import type { ContainerConfig } from '../../src/core/spec/types.js';
import { ContainerEngine } from '../../src/adapters/launcher/docker/engine.js';
import { DockerLauncher } from '../../src/adapters/launcher/docker/launcher.js';
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { eventually } from '../helpers/wait.js';

describePodman('container steps across an engine restart (Podman)', () => {
  let pm: Podman;
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => {
    try {
      for (const c of await pm.svcContainers()) if (c.Labels['svc.io/dag'] === 'restart') await pm.docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    } finally {
      await pm?.stop();
    }
  });

  /** Only this file's containers: the sweep tested here must not reach other test files' containers. */
  const OWNER = `svc-tests-restart-${process.pid}`;
  let worlds = 0;
  function world() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
    const block: ContainerConfig = {
      image: TEST_IMAGE, pullPolicy: 'never', env: [], volumes: [`${dir}:/count`], ports: [], startup: 'keepalive', command: [],
      waitFor: 'running', restartPolicy: 'no', keepContainer: false, shell: [],
    };
    const launcher = (o: { owner?: string; attemptOver?: (id: { dagRunId: string }) => Promise<boolean>; onSweep?: (removed: string[]) => void } = {}) => new DockerLauncher({
      engine: new ContainerEngine({ DOCKER_HOST: pm.dockerHost }), systemEnv: {}, owner: OWNER, ...o,
      layout: (req) => ({ stdout: join(dir, `${req.identity.node}.out`), stderr: join(dir, `${req.identity.node}.err`), recordFile: join(dir, 'exec', 'records'), recordKey: `${req.identity.node}.0` }),
    });
    const runId = `r${Date.now()}-${worlds++}`;
    const request = (node: string, commands: string[], own?: Partial<ContainerConfig>): ExecRequest => ({
      exec: { node, attempt: 0 }, step: { type: 'container', ...(own ? { container: { ...block, ...own } } : {}) } as ExecRequest['step'], commands, config: {},
      shell: [], shellExplicit: false, env: {}, workingDir: dir, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: false, copies: {}, merged: false,
      identity: { dagName: 'restart', dagRunId: runId, attemptId: 'a', node, attempt: 0 }, ...(own ? {} : { container: block }),
    });
    const count = (name: string): number => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean).length : 0);
    const out = (node: string): string => readFileSync(join(dir, `${node}.out`), 'utf8');
    return { launcher, request, count, out, runId };
  }

  test('an exec still running is adopted and waited for; the next commands of its step run once', async () => {
    const w = world();
    const before = w.launcher();
    const req = w.request('multi', ['echo one; echo x >> /count/one; sleep 1; exit 0', 'echo two; echo x >> /count/two', 'exit 6']);
    const first = (await before.ensure(req, { fresh: true }))!;
    await eventually(async () => w.count('one') === 1, 'the first command started', 30_000);
    const after = w.launcher();
    expect(after.begun(req)).toBe(true);
    const adopted = (await after.ensure(req, { fresh: false }))!;
    await expect(adopted.result).resolves.toMatchObject({ exitCode: 6 });
    // The first engine, still alive in this test, runs its own copy of the later commands: only the adopter
    // may; so it is the first command alone that must never run twice.
    await first.result;
    expect(w.count('one')).toBe(1);
    expect(w.out('multi')).toMatch(/^one\ntwo\n/);
  }, 60_000);

  test('an execution that ended while no engine watched gives its recorded exit code, and runs no more', async () => {
    const w = world();
    const req = w.request('ended', ['echo x >> /count/ended; exit 3']);
    await (await w.launcher().ensure(req, { fresh: true }))!.result;
    await expect((await w.launcher().ensure(req, { fresh: false }))!.result).resolves.toMatchObject({ exitCode: 3, error: 'exit status 3' });
    expect(w.count('ended')).toBe(1);
  }, 60_000);

  test('a step-level container whose own process is the step is adopted, and removed once it ended', async () => {
    const w = world();
    const req = w.request('task', [], { command: ['/bin/sh', '-c', 'echo x >> /count/task; sleep 1; exit 4'] });
    const first = (await w.launcher().ensure(req, { fresh: true }))!;
    await eventually(async () => w.count('task') === 1, 'the task started', 30_000);
    await expect((await w.launcher().ensure(req, { fresh: false }))!.result).resolves.toMatchObject({ exitCode: 4 });
    await first.result;
    expect(w.count('task')).toBe(1);
    await eventually(async () => (await pm.svcContainers()).every((c) => c.Labels['svc.io/dag-run'] !== req.identity.dagRunId), 'the step container removed', 30_000);
  }, 60_000);

  test('the first step a restarted svc runs sweeps away the containers of its runs that are over, and only those', async () => {
    const done = world();
    const other = world();
    const kept = world();
    await (await done.launcher().ensure(done.request('a', ['true']), { fresh: true }))!.result;
    await (await other.launcher({ owner: `${OWNER}-another-svc` }).ensure(other.request('a', ['true']), { fresh: true }))!.result;
    await (await kept.launcher().ensure(kept.request('a', ['true'], { keepContainer: true }), { fresh: true }))!.result;
    const ofRun = async (runId: string) => (await pm.svcContainers()).filter((c) => c.Labels['svc.io/dag-run'] === runId);
    expect((await ofRun(done.runId)).length).toBe(1);
    let swept: string[] | undefined;
    const now = world();
    const restarted = now.launcher({ attemptOver: async (id) => id.dagRunId !== now.runId, onSweep: (r) => { swept = r; } });
    await (await restarted.ensure(now.request('b', ['true']), { fresh: true }))!.result;
    await eventually(async () => swept !== undefined, 'the sweep', 30_000);
    expect(await ofRun(done.runId)).toEqual([]);
    expect((await ofRun(other.runId)).length).toBe(1);
    expect((await ofRun(now.runId)).length).toBe(1);
    expect((await ofRun(kept.runId)).length).toBe(1);
    for (const runId of [other.runId, kept.runId]) await pm.docker.getContainer((await ofRun(runId))[0]!.Id).remove({ force: true });
  }, 60_000);
});
