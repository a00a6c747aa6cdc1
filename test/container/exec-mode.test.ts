/** Exec mode (SPEC 2.5): steps run inside a running container of the user's, with its user, workingDir, env and shell. */
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';

describePodman('container exec mode (embedded, Podman)', () => {
  let pm: Podman;
  const name = `svc-test-exec-${process.pid}`;
  beforeAll(async () => {
    pm = await startPodman();
    const c = await pm.docker.createContainer({
      name, Image: TEST_IMAGE, Env: ['FROM_CONTAINER=set-by-its-owner'], WorkingDir: '/tmp',
      Entrypoint: ['/bin/sh', '-c', "trap 'exit 0' TERM; mkdir -p /srv/app; while :; do sleep 1; done"],
    });
    await c.start();
  }, 120_000);
  afterAll(async () => {
    await pm?.docker.getContainer(name).remove({ force: true }).catch(() => undefined);
    await pm?.stop();
  });

  const run = (yaml: string) => runSteps(yaml, { env: { DOCKER_HOST: pm.dockerHost } });

  test('`container: <name>` runs every step in that container, as it is', async () => {
    const r = await run(`container: ${name}\nsteps:\n  - name: a\n    command: echo "$FROM_CONTAINER $(pwd) $(id -u)"\n  - name: b\n    command: echo second >&2; exit 5\n`);
    expect(await r.log('a')).toBe('set-by-its-owner /tmp 0\n');
    expect(r.node('b')).toMatchObject({ exitCode: 5 });
    expect(await r.log('b', 'stderr')).toBe('second\n');
    expect((await pm.docker.getContainer(name).inspect()).State.Running).toBe(true);
  }, 60_000);

  test('{exec, user, workingDir, env, shell}: the step runs as told', async () => {
    const r = await run(`
container:
  exec: ${name}
  user: "1000"
  workingDir: /srv/app
  env: [EXTRA=from-the-block]
  shell: ["/bin/sh", "-c"]
steps:
  - name: a
    command: echo "$EXTRA $FROM_CONTAINER $(pwd) $(id -u)"
`);
    expect(r.status).toBe('succeeded');
    expect(await r.log('a')).toBe('from-the-block set-by-its-owner /srv/app 1000\n');
  }, 60_000);

  test('a container that does not exist is a clear step error', async () => {
    const r = await run(`container: svc-no-such-container\nsteps:\n  - name: a\n    command: "true"\n`);
    expect(r.status).toBe('failed');
    expect(r.node('a').error).toBe('container svc-no-such-container does not exist (exec mode runs steps in a running container)');
  }, 60_000);
});
