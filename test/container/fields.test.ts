/** The fields of a container block (SPEC 2.5) and what a step sees inside it: env, volumes, workingDir, user, shell, output, secrets. */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePodman, IMAGE_CMD_OUTPUT, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';
import { eventually } from '../helpers/wait.js';

describePodman('container fields (embedded, Podman)', () => {
  let pm: Podman;
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => { await pm?.stop(); });

  const run = (yaml: string, env: Record<string, string> = {}) => runSteps(yaml, { env: { DOCKER_HOST: pm.dockerHost, ...env } });

  /** A working directory with data/in.txt and an empty out/. */
  function workDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'svc-container-wd-'));
    mkdirSync(join(dir, 'data'));
    mkdirSync(join(dir, 'out'));
    chmodSync(join(dir, 'out'), 0o777); // the container's user 1000 writes there
    writeFileSync(join(dir, 'data', 'in.txt'), 'from-the-host');
    return dir;
  }

  test('env, volumes (relative against workingDir, ro and rw), workingDir, user and the step env', async () => {
    const dir = workDir();
    const r = await run(`
workingDir: ${dir}
env:
  - FROM_DAG: dag-value
container:
  image: ${TEST_IMAGE}
  env:
    - FROM_BLOCK=block-value
  volumes:
    - ./data:/data:ro
    - svc-test-volume:/out-volume
    - ${dir}/out:/out:rw
  workingDir: /data
  user: "1000"
steps:
  - name: look
    env:
      - FROM_STEP: step-value
    command: echo "$FROM_BLOCK $FROM_DAG $FROM_STEP $(pwd) $(id -u) $(cat in.txt)"; echo written > /out/result.txt
  - name: readonly
    command: touch /data/nope
    continueOn: failed
`);
    expect({ error: r.node('look').error, err: await r.log('look', 'stderr') }).toEqual({ error: '', err: '' });
    expect(await r.log('look')).toBe(`block-value dag-value step-value /data 1000 from-the-host\n`);
    expect(readFileSync(join(dir, 'out', 'result.txt'), 'utf8')).toBe('written\n');
    expect(r.node('readonly').exitCode).not.toBe(0);
    expect(await r.log('readonly', 'stderr')).toMatch(/Read-only file system/);
    await eventually(async () => (await pm.svcContainers()).every((c) => c.Labels['svc.io/dag-run'] !== r.run.spec.dagRunId), 'the run container removed', 30_000);
    pm.cli(['volume', 'rm', '--force', 'svc-test-volume']);
  }, 90_000);

  test('output capture, a script, the block\'s shell, and stdout/stderr copies', async () => {
    const dir = workDir();
    const r = await run(`
workingDir: ${dir}
type: graph
container:
  image: ${TEST_IMAGE}
steps:
  - name: capture
    command: echo "  captured value  "
    output: VALUE
    stdout: copy.out
  - name: script
    script: |
      #!/bin/sh
      echo "script sees $1$0" | tr a-z A-Z
      echo to-stderr >&2
  - name: shelled
    depends: capture
    container:
      image: ${TEST_IMAGE}
      shell: ["/bin/sh", "-c"]
    command: echo "got \${VALUE}"
`);
    expect(r.status).toBe('succeeded');
    expect(await r.outputs()).toEqual({ value: 'captured value' });
    expect(readFileSync(join(dir, 'copy.out'), 'utf8')).toBe('  captured value  \n');
    expect(await r.log('script')).toMatch(/^SCRIPT SEES /);
    expect(await r.log('script', 'stderr')).toBe('to-stderr\n');
    expect(await r.log('shelled')).toBe('got captured value\n');
  }, 90_000);

  test('secrets are masked in the logs and in captured output', async () => {
    const r = await run(`
secrets:
  - name: TOKEN
    provider: env
    key: SVC_CONTAINER_TOKEN
container:
  image: ${TEST_IMAGE}
steps:
  - name: leak
    command: echo "token=$TOKEN"; echo "again $TOKEN" >&2
    output: LEAKED
`, { SVC_CONTAINER_TOKEN: 'hunter2-secret' });
    expect(r.status).toBe('succeeded');
    expect(await r.log('leak')).toBe('token=*******\n');
    expect(await r.log('leak', 'stderr')).toBe('again *******\n');
    expect(JSON.stringify(await r.outputs())).not.toContain('hunter2');
  }, 90_000);

  test('a step-level container: one per execution, removed after it; without a command the image runs as it is', async () => {
    const r = await run(`
type: graph
steps:
  - name: own
    container:
      image: ${TEST_IMAGE}
      env: [WHO=step-level]
    command: echo "$WHO $(hostname)"
  - name: image-as-is
    container:
      image: ${TEST_IMAGE}
  - name: block-command
    container:
      image: ${TEST_IMAGE}
      command: ["/bin/sh", "-c", "echo from the block command; exit 4"]
    continueOn: failed
`);
    expect(await r.log('own')).toMatch(/^step-level \S+\n$/);
    expect(await r.log('image-as-is')).toBe(`${IMAGE_CMD_OUTPUT}\n`);
    expect(await r.log('block-command')).toBe('from the block command\n');
    expect(r.node('block-command').exitCode).toBe(4);
    expect((await pm.svcContainers()).filter((c) => c.Labels['svc.io/dag-run'] === r.run.spec.dagRunId)).toEqual([]);
  }, 90_000);

  test('keepContainer keeps the run\'s container after the run; its name comes from the block', async () => {
    const name = `svc-kept-${Date.now()}`;
    const r = await run(`container:\n  image: ${TEST_IMAGE}\n  name: ${name}\n  keepContainer: true\nsteps:\n  - name: a\n    command: echo kept > /tmp/mark\n`);
    expect(r.status).toBe('succeeded');
    await new Promise((res) => setTimeout(res, 500));
    const info = await pm.docker.getContainer(name).inspect();
    expect(info.State.Running).toBe(true);
    expect(info.Config.Labels['svc.io/dag-run']).toBe(r.run.spec.dagRunId);
    await pm.docker.getContainer(name).remove({ force: true });
  }, 90_000);

  test('ports, network and restartPolicy reach the engine', async () => {
    const name = `svc-ports-${Date.now()}`;
    const r = await run(`container:\n  image: ${TEST_IMAGE}\n  name: ${name}\n  keepContainer: true\n  network: bridge\n  restartPolicy: unless-stopped\n  ports: ["127.0.0.1:18080:80", "9090/udp"]\nsteps:\n  - name: a\n    command: "true"\n`);
    expect(r.status).toBe('succeeded');
    const info = await pm.docker.getContainer(name).inspect();
    expect(info.HostConfig.RestartPolicy?.Name).toBe('unless-stopped');
    expect(info.HostConfig.NetworkMode).toBe('bridge');
    expect(info.HostConfig.PortBindings?.['80/tcp']).toEqual([{ HostIp: '127.0.0.1', HostPort: '18080' }]);
    expect(Object.keys(info.Config.ExposedPorts ?? {}).sort()).toEqual(['80/tcp', '9090/udp']);
    await pm.docker.getContainer(name).remove({ force: true });
  }, 90_000);

  test('platform, merged logs, and captured output over maxOutputSize', async () => {
    const r = await run(`
type: graph
maxOutputSize: 16
container:
  image: ${TEST_IMAGE}
  platform: linux/amd64
steps:
  - name: merged
    logOutput: merged
    command: echo one; echo two >&2; echo three
  - name: big
    command: echo 0123456789abcdefghij
    output: BIG
`);
    expect(r.node('merged').status).toBe(4);
    const merged = readdirSync(r.dir, { recursive: true, withFileTypes: true }).find((e) => e.isFile() && e.name === 'merged.log')!;
    expect(readFileSync(join(merged.parentPath, merged.name), 'utf8').split('\n').sort()).toEqual(['', 'one', 'three', 'two']);
    expect(r.node('big')).toMatchObject({ status: 2, error: 'output exceeded maximum size limit (16 bytes)' });
  }, 90_000);
});
