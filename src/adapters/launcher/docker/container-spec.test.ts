import { bind, createBody, KEEPALIVE, portBindings } from './container-spec.js';
import type { ContainerConfig } from '../../../core/spec/types.js';

const block = (over: Partial<ContainerConfig> = {}): ContainerConfig => ({
  image: 'img', pullPolicy: 'missing', env: [], volumes: [], ports: [], startup: 'keepalive', command: [], waitFor: 'running',
  restartPolicy: 'no', keepContainer: false, shell: [], ...over,
});
const identity = { dagName: 'd', dagRunId: 'r', attemptId: 'a', node: 's', attempt: 0 };

describe('container create request', () => {
  test.each([
    ['./data:/data:ro', '/wd/data:/data:ro'], ['../up:/up', '/up:/up'], ['sub/dir:/x:rw', '/wd/sub/dir:/x:rw'],
    ['/abs:/abs', '/abs:/abs'], ['named:/vol', 'named:/vol'], ['.:/all', '/wd:/all'],
  ])('volume %s binds %s', (spec, want) => expect(bind(spec, '/wd')).toBe(want));

  test('ports as docker run -p reads them', () => {
    expect(portBindings(['80', '8080:81', '127.0.0.1:9000:90/udp', '[::1]:7000:70'])).toEqual({
      exposed: { '80/tcp': {}, '81/tcp': {}, '90/udp': {}, '70/tcp': {} },
      bindings: { '80/tcp': [{ HostPort: '' }], '81/tcp': [{ HostPort: '8080' }], '90/udp': [{ HostIp: '127.0.0.1', HostPort: '9000' }], '70/tcp': [{ HostIp: '::1', HostPort: '7000' }] },
    });
  });

  test.each([
    ['keepalive', { Entrypoint: KEEPALIVE, Cmd: [] }],
    ['entrypoint', {}],
    ['command', { Cmd: ['serve', '--port', '80'] }],
  ] as const)('startup %s', (startup, want) => {
    const body = createBody({ name: 'n', config: block({ startup, command: ['serve', '--port', '80'] }), identity, role: 'run', owner: 'o1', hostDir: '/wd', mode: startup });
    expect({ Entrypoint: body.Entrypoint, Cmd: body.Cmd }).toEqual({ Entrypoint: undefined, Cmd: undefined, ...want });
  });

  test('labels name the execution; a task never restarts', () => {
    const body = createBody({ name: 'n', config: block({ restartPolicy: 'always', user: '1000', workingDir: '/w', env: ['A=1'] }), identity, role: 'step', owner: 'o1', hostDir: '/wd', mode: 'task' });
    expect(body).toMatchObject({
      Image: 'img', Env: ['A=1'], User: '1000', WorkingDir: '/w', HostConfig: { RestartPolicy: { Name: 'no' } },
      Labels: { 'svc.io/managed-by': 'svc-embedded', 'svc.io/container-role': 'step', 'svc.io/owner': 'o1', 'svc.io/dag': 'd', 'svc.io/dag-run': 'r', 'svc.io/identity': JSON.stringify(identity) },
    });
  });
});
