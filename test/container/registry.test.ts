/**
 * Registry credentials reach the registry (SPEC 2.2 `registryAuths`, and DOCKER_AUTH_CONFIG): a fake
 * registry on loopback asks for Basic credentials and records what the engine's pull sends (then answers
 * that it has no such image). And DOCKER_HOST in its tcp:// form.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '../helpers/needs.js';
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';
import { runSteps } from '../helpers/steps.js';

describePodman('registry credentials and tcp:// engines (Podman)', () => {
  let pm: Podman;
  let registry: Server;
  let host = '';
  const seen: string[] = [];
  beforeAll(async () => {
    registry = createServer((req, res) => {
      const auth = req.headers.authorization;
      if (!auth) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="svc-test"', 'Docker-Distribution-API-Version': 'registry/2.0' });
        return res.end();
      }
      seen.push(Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8'));
      res.writeHead(req.url === '/v2/' ? 200 : 404, { 'Content-Type': 'application/json', 'Docker-Distribution-API-Version': 'registry/2.0' });
      res.end(req.url === '/v2/' ? '{}' : '{"errors":[{"code":"MANIFEST_UNKNOWN","message":"no such image"}]}');
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
    host = `127.0.0.1:${(registry.address() as AddressInfo).port}`;
    pm = await startPodman({ insecureRegistries: [host], tcpPort: await freePort() });
  }, 120_000);
  afterAll(async () => {
    await pm?.stop();
    await new Promise((r) => registry?.close(r));
  });

  const b64 = (s: string): string => Buffer.from(s).toString('base64');

  test('the DAG\'s registryAuths go with the pull; DOCKER_AUTH_CONFIG serves registries the DAG names none for', async () => {
    seen.length = 0;
    const r = await runSteps(`registryAuths:\n  ${host}:\n    username: dag-user\n    password: dag-pass\nsteps:\n  - name: a\n    container:\n      image: ${host}/private/app:1\n    command: echo never\n`, {
      env: { DOCKER_HOST: pm.dockerHost, DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { [host]: { auth: b64('env-user:env-pass') } } }) },
    });
    expect(r.node('a').error).toMatch(new RegExp(`^cannot pull image ${host}/private/app:1`));
    expect(seen).toContain('dag-user:dag-pass');
    expect(seen).not.toContain('env-user:env-pass');
    seen.length = 0;
    const e = await runSteps(`steps:\n  - name: a\n    container:\n      image: ${host}/private/app:1\n    command: echo never\n`, {
      env: { DOCKER_HOST: pm.dockerHost, DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { [host]: { auth: b64('env-user:env-pass') } } }) },
    });
    expect(e.status).toBe('failed');
    expect(seen).toContain('env-user:env-pass');
  }, 90_000);

  test('steps run through an engine at a tcp:// DOCKER_HOST', async () => {
    expect(pm.dockerHost).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    const r = await runSteps(`container:\n  image: ${TEST_IMAGE}\nsteps:\n  - name: a\n    command: echo over tcp\n`, { env: { DOCKER_HOST: pm.dockerHost } });
    expect(r.status).toBe('succeeded');
    expect(await r.log('a')).toBe('over tcp\n');
  }, 90_000);
});
