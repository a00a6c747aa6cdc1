/** What goes wrong is a clear step error, never a crash: no engine, a missing image, bad block values, registry auth. */
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';

describe('container steps without an engine', () => {
  test('the step fails and says where it looked for an engine', async () => {
    const r = await runSteps(`container:\n  image: ${TEST_IMAGE}\nsteps:\n  - name: a\n    command: echo never\n`, { env: { DOCKER_HOST: 'unix:///nonexistent/svc-test/docker.sock' } });
    expect(r.status).toBe('failed');
    expect(r.node('a').error).toMatch(/^no container engine reachable through DOCKER_HOST: tried unix:\/\/\/nonexistent\/svc-test\/docker.sock \(no such file\)\. Start Docker, or Podman's API service/);
    expect(await r.log('a', 'stderr')).toContain('no container engine reachable');
  });

  test('a DOCKER_HOST svc cannot use is named', async () => {
    const r = await runSteps(`steps:\n  - name: a\n    container:\n      image: x\n    command: echo never\n`, { env: { DOCKER_HOST: 'ssh://somewhere' } });
    expect(r.node('a').error).toBe('DOCKER_HOST=ssh://somewhere is not a unix:///path or tcp://host:port address');
  });
});

describePodman('container step errors (embedded, Podman)', () => {
  let pm: Podman;
  beforeAll(async () => { pm = await startPodman(); }, 120_000);
  afterAll(async () => { await pm?.stop(); });

  const run = (yaml: string, env: Record<string, string> = {}) => runSteps(yaml, { env: { DOCKER_HOST: pm.dockerHost, ...env } });

  test.each([
    ['an image that is not there with pullPolicy never', 'image: localhost/svc-missing:1\n      pullPolicy: never', 'image localhost/svc-missing:1 is not present and its pullPolicy is never'],
    ['an image no registry serves', 'image: 127.0.0.1:9/svc-missing:1', /^cannot pull image 127\.0\.0\.1:9\/svc-missing:1: /],
    // Written values are checked when the DAG loads (core/spec/container-checks.ts); values read from variables here.
    ['a volume that is not host:container', `image: ${TEST_IMAGE}\n      volumes: ["\${ONE_PART}"]`, 'volume "/only-one-part" is not host:container[:ro|rw]'],
    ['a volume mode that is neither ro nor rw', `image: ${TEST_IMAGE}\n      volumes: ["/a:/b:\${MODE}"]`, 'volume "/a:/b:rx": the mode must be ro or rw, not rx'],
    ['a port that is not one', `image: ${TEST_IMAGE}\n      ports: ["\${PORT}"]`, 'port "eighty" is not [[hostIp:]hostPort:]containerPort[/protocol]'],
  ])('%s', async (_, block, error) => {
    const r = await run(`env:\n  - ONE_PART: /only-one-part\n  - MODE: rx\n  - PORT: eighty\nsteps:\n  - name: a\n    container:\n      ${block}\n    command: echo never\n`);
    expect(r.status).toBe('failed');
    if (typeof error === 'string') expect(r.node('a').error).toBe(error);
    else expect(r.node('a').error).toMatch(error);
    expect((await pm.svcContainers()).filter((c) => c.Labels['svc.io/dag-run'] === r.run.spec.dagRunId)).toEqual([]);
  }, 60_000);

  test('a container name taken by a container that is not the run\'s is never used', async () => {
    const name = `svc-test-taken-${process.pid}`;
    await pm.docker.createContainer({ name, Image: TEST_IMAGE });
    try {
      const r = await run(`container:\n  image: ${TEST_IMAGE}\n  name: ${name}\nsteps:\n  - name: a\n    command: echo never\n`);
      expect(r.node('a').error).toBe(`a container named ${name} already exists and is not this run's: remove it or choose another container name`);
    } finally {
      await pm.docker.getContainer(name).remove({ force: true });
    }
  }, 60_000);

  test('a failed pull with registryAuths names the image; a bad DOCKER_AUTH_CONFIG is named without its value', async () => {
    const r = await run(`registryAuths:\n  127.0.0.1:9:\n    username: u\n    password: p\nsteps:\n  - name: a\n    container:\n      image: 127.0.0.1:9/private:1\n    command: echo never\n  - name: b\n    depends: []\n    container:\n      image: 127.0.0.2:9/other:1\n    command: echo never\n`, { DOCKER_AUTH_CONFIG: '{not json: hunter2' });
    expect(r.node('a').error).toMatch(/^cannot pull image 127\.0\.0\.1:9\/private:1/);
    expect(r.node('b').error).toBe('DOCKER_AUTH_CONFIG is not valid JSON');
  }, 60_000);

  test('volumes, ports and a logPattern as written are checked when the DAG loads', async () => {
    await expect(run(`container:\n  image: ${TEST_IMAGE}\n  volumes: ["/a:/b:rx"]\n  ports: ["eighty"]\n  logPattern: "("\nsteps:\n  - name: a\n    command: echo never\n`)).rejects.toThrow(
      /container\.volumes\[0\]: "\/a:\/b:rx": the mode must be ro or rw, not rx; container\.ports\[0\]: "eighty" is not .*; container\.logPattern: is not a valid regular expression/,
    );
  });
});
