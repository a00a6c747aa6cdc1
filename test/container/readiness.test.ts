/** startup, waitFor and logPattern (SPEC 2.5): steps start once the container is ready, within the readiness limit. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import type { ContainerConfig } from '../../src/core/spec/types.js';
import { ContainerEngine } from '../../src/adapters/launcher/docker/engine.js';
import { DockerLauncher } from '../../src/adapters/launcher/docker/launcher.js';
import { describePodman, IMAGE_CMD_OUTPUT, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';

describePodman('container readiness (embedded, Podman)', () => {
  let pm: Podman;
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => { await pm?.stop(); });

  const run = (yaml: string) => runSteps(yaml, { env: { DOCKER_HOST: pm.dockerHost } });

  test('startup command with a logPattern: the first step starts after the pattern appeared', async () => {
    const r = await run(`
container:
  image: ${TEST_IMAGE}
  startup: command
  command: ["/bin/sh", "-c", "sleep 1; echo prepared > /tmp/state; echo server ready; exec sleep 3600"]
  logPattern: "server\\\\s+ready"
steps:
  - name: a
    command: cat /tmp/state
`);
    expect(r.status).toBe('succeeded');
    expect(await r.log('a')).toBe('prepared\n');
  }, 60_000);

  test('waitFor healthy on an image without a healthcheck waits for running, and says so', async () => {
    const r = await run(`container:\n  image: ${TEST_IMAGE}\n  waitFor: healthy\nsteps:\n  - name: a\n    command: echo up\n`);
    expect(r.status).toBe('succeeded');
    expect(await r.log('a')).toBe('up\n');
    expect(await r.log('a', 'stderr')).toMatch(/defines no healthcheck: waiting for running only/);
  }, 60_000);

  test('startup entrypoint: a container whose own process ends before it is ready fails the step with its output', async () => {
    const r = await run(`container:\n  image: ${TEST_IMAGE}\n  startup: entrypoint\nsteps:\n  - name: a\n    command: echo never\n`);
    expect(r.status).toBe('failed');
    // Seen by the readiness wait, or when the step's exec finds it gone: either way, said plainly.
    expect(r.node('a').error).toMatch(new RegExp(`exited with code 0 before (it was ready|the step could run in it); its last output:\\n${IMAGE_CMD_OUTPUT}`));
  }, 60_000);

  test('a logPattern that never appears fails the step at the readiness limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ready-'));
    const launcher = new DockerLauncher({
      engine: new ContainerEngine({ DOCKER_HOST: pm.dockerHost }), systemEnv: {}, owner: 'svc-tests-readiness', readyLimitMs: 1500,
      layout: () => ({ stdout: join(dir, 'out'), stderr: join(dir, 'err'), recordFile: join(dir, 'records'), recordKey: 'a.0' }),
    });
    const container: ContainerConfig = {
      image: TEST_IMAGE, pullPolicy: 'never', env: [], volumes: [], ports: [], startup: 'keepalive', command: [],
      waitFor: 'running', logPattern: 'never printed', restartPolicy: 'no', keepContainer: false, shell: [],
    };
    const req = {
      exec: { node: 'a', attempt: 0 }, step: { type: 'container', container } as unknown as ExecRequest['step'], commands: ['echo never'], config: {},
      shell: [], shellExplicit: false, env: {}, workingDir: dir, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: false, copies: {}, merged: false,
      identity: { dagName: 'ready', dagRunId: `r${Date.now()}`, attemptId: 'a', node: 'a', attempt: 0 },
    } as ExecRequest;
    const t0 = Date.now();
    const result = await (await launcher.ensure(req, { fresh: true }))!.result;
    expect(result).toMatchObject({ exitCode: 1, error: expect.stringMatching(/was not matching logPattern never printed within 1.5s/) });
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect((await pm.svcContainers()).filter((c) => c.Labels['svc.io/dag-run'] === req.identity.dagRunId)).toEqual([]);
  }, 90_000);
});
