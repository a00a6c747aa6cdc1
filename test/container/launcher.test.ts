/**
 * The Docker launcher passes the Launcher conformance suite against a real engine (Podman): steps of a
 * DAG-level container, counted by a file in a volume the container shares with the test.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcherConformance } from '../../src/core/ports/conformance/launcher.js';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import type { ContainerConfig } from '../../src/core/spec/types.js';
import { ContainerEngine } from '../../src/adapters/launcher/docker/engine.js';
import { DockerLauncher } from '../../src/adapters/launcher/docker/launcher.js';
import { describePodman, podmanSkipReason, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';

const COMMANDS = { ok: 'exit 0', fail: 'exit 3', hold: 'sleep 30' } as const;

let pm: Podman | undefined;
const skip = podmanSkipReason();
if (!skip) {
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => {
    try {
      // The run containers of these executions: no run ends here to remove them.
      for (const c of await pm!.svcContainers()) if (c.Labels['svc.io/dag'] === 'conformance') await pm!.docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    } finally {
      await pm?.stop();
    }
  });
}

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-docker-launcher-'));
  const container: ContainerConfig = {
    image: TEST_IMAGE, pullPolicy: 'never', env: [], volumes: [`${dir}:/count`], ports: [], startup: 'keepalive', command: [],
    waitFor: 'running', restartPolicy: 'no', keepContainer: false, shell: [],
  };
  const launcher = new DockerLauncher({
    engine: new ContainerEngine({ DOCKER_HOST: pm!.dockerHost }), systemEnv: {}, owner: 'svc-tests-conformance',
    layout: (req) => ({ stdout: join(dir, `${req.identity.node}.out`), stderr: join(dir, `${req.identity.node}.err`), recordFile: join(dir, 'exec', 'records'), recordKey: `${req.identity.node}.0` }),
  });
  let n = 0;
  const runId = `r${Date.now()}${Math.random().toString(16).slice(2, 8)}`;
  return {
    launcher,
    request: (what: keyof typeof COMMANDS): ExecRequest => {
      const node = `s${n++}`;
      return {
        exec: { node, attempt: 0 }, step: { type: 'container' } as ExecRequest['step'], commands: [`echo ran >> /count/${node}.count; ${COMMANDS[what]}`], config: {},
        shell: ['/bin/sh', '-e'], shellExplicit: false, env: {}, workingDir: dir, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: false, copies: {}, merged: false,
        identity: { dagName: 'conformance', dagRunId: runId, attemptId: 'a', node, attempt: 0 }, container,
      };
    },
    starts: async (req: ExecRequest) => {
      const count = join(dir, `${req.identity.node}.count`);
      return existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean).length : 0;
    },
  };
}

if (skip) describePodman('DockerLauncher conformance', () => undefined);
else launcherConformance('DockerLauncher (Podman, a DAG-level container)', async () => fixture());
