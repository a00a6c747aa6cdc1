/** Unit tests of the agent's pure parts (no cluster needed). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import YAML from 'yaml';
import { expand, fieldRef } from './agent/env.js';
import { containerArgv, imageRepository } from './agent/images.js';
import { LogWriter, serveLog } from './agent/logs.js';
import { decide, isLive, tolerates, unfit } from './agent/schedule.js';
import type { Container, Node, Pod } from './agent/types.js';
import { linkMounts, setUpVolume, writeTokenKubeconfig, type TokenRequestSpec, type VolumeDeps } from './agent/volumes.js';
import { testbedEntrypoints } from './lib/testbed.js';

const node = (name: string, labels: Record<string, string> = {}, extra: Partial<Node> = {}): Node => ({
  metadata: { name, labels },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
  ...extra,
});
const pod = (spec: Partial<Pod['spec']> = {}): Pod => ({ metadata: { name: 'p', uid: 'u1' }, spec: { containers: [], ...spec } });

describe('scheduling', () => {
  test('nodeSelector, node affinity, taints and unschedulable', () => {
    expect(unfit(pod({ nodeSelector: { pool: 'a' } }), node('n', { pool: 'a' }))).toBeUndefined();
    expect(unfit(pod({ nodeSelector: { pool: 'a' } }), node('n', { pool: 'b' }))).toMatch(/selector/);
    const aff = (operator: 'In' | 'NotIn' | 'Exists' | 'Gt', values?: string[]): Pod =>
      pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator, ...(values ? { values } : {}) }] }] } } } });
    expect(unfit(aff('In', ['x', 'y']), node('n', { k: 'y' }))).toBeUndefined();
    expect(unfit(aff('NotIn', ['y']), node('n', { k: 'y' }))).toBeDefined();
    expect(unfit(aff('Exists'), node('n', {}))).toBeDefined();
    expect(unfit(aff('Gt', ['3']), node('n', { k: '4' }))).toBeUndefined();
    const tainted = node('n', {}, { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } });
    expect(unfit(pod(), tainted)).toMatch(/taint/);
    expect(unfit(pod({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] }), tainted)).toBeUndefined();
    expect(tolerates([{ operator: 'Exists' }], { key: 'any', effect: 'NoExecute' })).toBe(true);
    expect(unfit(pod(), node('n', {}, { spec: { unschedulable: true } }))).toMatch(/unschedulable/);
  });

  test('decide binds to the least loaded fitting node or explains why none fits', () => {
    const nodes = [node('a', { pool: 'x' }), node('b', { pool: 'x' }), node('c', { pool: 'y' })];
    expect(decide(pod({ nodeSelector: { pool: 'y' } }), nodes, new Map())).toEqual({ kind: 'bind', node: 'c' });
    expect(decide(pod({ nodeSelector: { pool: 'x' } }), nodes, new Map([['a', 3]]))).toEqual({ kind: 'bind', node: 'b' });
    expect(decide(pod({ nodeSelector: { pool: 'z' } }), nodes, new Map())).toEqual({
      kind: 'unschedulable',
      message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
    });
  });

  test('a node is live while its Lease is fresh and it is Ready', () => {
    const now = Date.parse('2026-01-01T00:00:10Z');
    const lease = (t: string) => ({ metadata: { name: 'n' }, spec: { renewTime: t, leaseDurationSeconds: 5 } });
    expect(isLive(node('n'), lease('2026-01-01T00:00:08.000000Z'), now)).toBe(true);
    expect(isLive(node('n'), lease('2026-01-01T00:00:01.000000Z'), now)).toBe(false);
    expect(isLive(node('n'), undefined, now)).toBe(false);
  });
});

test('$(VAR) expansion follows Kubernetes rules', () => {
  expect(expand('a $(X) $(Y) $$(X) $(', { X: '1' })).toBe('a 1 $(Y) $(X) $(');
});

test('CRI log files: partial lines, tailLines, timestamps, limitBytes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-log-'));
  const file = path.join(dir, '0.log');
  const w = new LogWriter(file);
  const out = new PassThrough();
  const err = new PassThrough();
  w.attach(out, 'stdout');
  w.attach(err, 'stderr');
  out.write('one\ntw');
  err.write('e1\n');
  out.write('o\nthree');
  out.end();
  err.end();
  await new Promise((r) => setTimeout(r, 50));
  const read = async (opts: Partial<Parameters<typeof serveLog>[1]>): Promise<string> => {
    const sink = new PassThrough();
    let text = '';
    sink.on('data', (d: Buffer) => (text += d.toString()));
    await serveLog(file, { follow: false, timestamps: false, ...opts }, sink, () => true);
    return text;
  };
  expect(await read({})).toBe('one\ne1\ntwo\nthree');
  expect(await read({ tailLines: 2 })).toBe('two\nthree');
  expect(await read({ limitBytes: 5 })).toBe('one\ne');
  expect(await read({ tailLines: 1, timestamps: true })).toMatch(/^\S+Z three$/);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('image entrypoints', () => {
  const entrypoints = { 'tools/echo': { entrypoint: ['/bin/echo', 'entry'], cmd: ['default'] }, bare: { entrypoint: ['/bin/true'] } };
  const argv = (c: Partial<Container>): string[] => containerArgv({ name: 'c', ...c }, entrypoints, (s) => expand(s, { X: 'x' }));

  test('command replaces ENTRYPOINT and CMD, args replace CMD, neither runs both', () => {
    expect(argv({ image: 'tools/echo:1.0' })).toEqual(['/bin/echo', 'entry', 'default']);
    expect(argv({ image: 'tools/echo:1.0', args: ['a', '$(X)'] })).toEqual(['/bin/echo', 'entry', 'a', 'x']);
    expect(argv({ image: 'tools/echo:1.0', command: ['sh', '-c'] })).toEqual(['sh', '-c']);
    expect(argv({ image: 'tools/echo@sha256:abc', command: ['run'], args: ['$(X)'] })).toEqual(['run', 'x']);
    expect(argv({ image: 'tools/echo', command: [], args: [] })).toEqual(['/bin/echo', 'entry', 'default']);
    expect(argv({ image: 'bare:2' })).toEqual(['/bin/true']);
  });

  test('an image without a known entrypoint runs command + args, or nothing', () => {
    expect(argv({ image: 'busybox:1.36' })).toEqual([]);
    expect(argv({ image: 'busybox:1.36', args: ['echo', '$(X)'] })).toEqual(['echo', 'x']);
    expect(argv({})).toEqual([]);
    expect(imageRepository('org/app:1.2@sha256:00')).toBe('org/app');
  });

  test('the svc image runs bin/svc.js server on the pinned Node; SVC_TESTBED_ENTRYPOINTS adds images', () => {
    const before = process.env.SVC_TESTBED_ENTRYPOINTS;
    try {
      delete process.env.SVC_TESTBED_ENTRYPOINTS;
      const svc = testbedEntrypoints().svc;
      expect(svc?.cmd).toEqual(['server']);
      expect(svc?.entrypoint[1]).toBe(path.resolve('bin/svc.js'));
      expect(svc?.entrypoint[0]).toBe(fs.existsSync('node_modules/.bin/node') ? path.resolve('node_modules/.bin/node') : process.execPath);
      process.env.SVC_TESTBED_ENTRYPOINTS = JSON.stringify({ 'org/tool': { entrypoint: ['/usr/bin/tool'], cmd: ['run'] } });
      expect(testbedEntrypoints()['org/tool']).toEqual({ entrypoint: ['/usr/bin/tool'], cmd: ['run'] });
      process.env.SVC_TESTBED_ENTRYPOINTS = '{"x": {"entrypoint": "not a list"}}';
      expect(() => testbedEntrypoints()).toThrow(/SVC_TESTBED_ENTRYPOINTS: x: entrypoint/);
    } finally {
      if (before === undefined) delete process.env.SVC_TESTBED_ENTRYPOINTS;
      else process.env.SVC_TESTBED_ENTRYPOINTS = before;
    }
  });
});

test('fieldRef status.podIP is the Node\'s podIP, hostIP stays loopback', () => {
  const p = pod();
  expect(fieldRef(p, 'status.podIP', { nodeName: 'n', podIP: '10.1.2.3' })).toBe('10.1.2.3');
  expect(fieldRef(p, 'status.podIPs', { nodeName: 'n', podIP: '10.1.2.3' })).toBe('10.1.2.3');
  expect(fieldRef(p, 'status.hostIP', { nodeName: 'n', podIP: '10.1.2.3' })).toBe('127.0.0.1');
});

describe('volumes', () => {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-vol-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const kubeApiAccess = {
    name: 'kube-api-access-x',
    projected: {
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
  const saPod: Pod = { metadata: { name: 'p', namespace: 'ns1', uid: 'u1', labels: { b: '2', a: '1' } }, spec: { serviceAccountName: 'reader', containers: [], volumes: [kubeApiAccess] } };
  const deps = (over: Partial<VolumeDeps> = {}): VolumeDeps & { tokens: { ns: string; sa: string; spec: TokenRequestSpec }[] } => {
    const tokens: { ns: string; sa: string; spec: TokenRequestSpec }[] = [];
    return {
      nodeName: 'n',
      podIP: '10.0.0.9',
      fetch: async (kind, _ns, name) => (kind === 'configmaps' && name === 'kube-root-ca.crt' ? { metadata: { name }, data: { 'ca.crt': 'CA PEM' } } : undefined),
      getClaim: async () => undefined,
      requestToken: async (ns, sa, spec) => {
        tokens.push({ ns, sa, spec });
        return 'tok3n';
      },
      images: {},
      warn: () => {},
      tokens,
      ...over,
    };
  };

  test('a projected kube-api-access volume: TokenRequest bound to the Pod, ca.crt, namespace; its kubeconfig', async () => {
    const d = deps();
    const vol = path.join(dir, 'scratch', kubeApiAccess.name);
    expect(await setUpVolume(saPod, kubeApiAccess, vol, d)).toBeUndefined();
    expect(d.tokens).toEqual([{ ns: 'ns1', sa: 'reader', spec: { expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' } } }]);
    expect(fs.readFileSync(path.join(vol, 'token'), 'utf8')).toBe('tok3n');
    expect(fs.readFileSync(path.join(vol, 'ca.crt'), 'utf8')).toBe('CA PEM');
    expect(fs.readFileSync(path.join(vol, 'namespace'), 'utf8')).toBe('ns1');
    const file = writeTokenKubeconfig(saPod, kubeApiAccess, path.join(dir, 'scratch'), { server: 'https://127.0.0.1:6443', caFile: '/elsewhere/ca.crt' });
    expect(file).toBe(path.join(dir, 'scratch', '.svc-testbed', 'kubeconfig-kube-api-access-x'));
    const kc = YAML.parse(fs.readFileSync(file ?? '', 'utf8'));
    expect(kc.clusters[0].cluster).toEqual({ server: 'https://127.0.0.1:6443', 'certificate-authority': path.join(vol, 'ca.crt') });
    expect(kc.users[0].user).toEqual({ token: 'tok3n' });
    expect(kc.contexts[0].context.namespace).toBe('ns1');
    expect(writeTokenKubeconfig(saPod, { name: 'e', emptyDir: {} }, dir, { server: 's', caFile: 'c' })).toBeUndefined();
  });

  test('missing sources say why (FailedMount), optional ones do not; downward API label files', async () => {
    const failing = deps({ requestToken: async () => Promise.reject(Object.assign(new Error('HTTP 404'), { body: '{"message":"serviceaccounts \\"reader\\" not found"}' })) });
    expect(await setUpVolume(saPod, kubeApiAccess, path.join(dir, 'v1'), failing)).toBe('failed to fetch token: serviceaccounts "reader" not found');
    expect(await setUpVolume(saPod, { name: 's', secret: { secretName: 'gone' } }, path.join(dir, 'v2'), deps())).toBe('secret "gone" not found');
    expect(await setUpVolume(saPod, { name: 's', projected: { sources: [{ secret: { name: 'gone', optional: true } }] } }, path.join(dir, 'v3'), deps())).toBeUndefined();
    const labels = { name: 'l', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'ip', fieldRef: { fieldPath: 'status.podIP' } }] } };
    expect(await setUpVolume(saPod, labels, path.join(dir, 'v4'), deps())).toBeUndefined();
    expect(fs.readFileSync(path.join(dir, 'v4', 'labels'), 'utf8')).toBe('a="1"\nb="2"');
    expect(fs.readFileSync(path.join(dir, 'v4', 'ip'), 'utf8')).toBe('10.0.0.9');
  });

  test('a claim volume waits for its claim, then links the shared directory; mountPath links under tmp', async () => {
    const claimsDir = path.join(dir, 'volumes');
    const v = { name: 'data', persistentVolumeClaim: { claimName: 'shared' } };
    const scratch = path.join(dir, 'scratch');
    fs.mkdirSync(scratch);
    expect(await setUpVolume(saPod, v, path.join(scratch, 'data'), deps({ claimsDir }))).toBe('persistentvolumeclaim "shared" not found');
    const found = deps({ claimsDir, getClaim: async (_ns, name) => ({ metadata: { name } }) });
    expect(await setUpVolume(saPod, v, path.join(scratch, 'data'), found)).toBeUndefined();
    expect(fs.realpathSync(path.join(scratch, 'data'))).toBe(fs.realpathSync(path.join(claimsDir, 'ns1', 'shared')));

    const mounts = path.join(dir, 'mounts');
    fs.mkdirSync(path.join(mounts, 'existing'), { recursive: true });
    const c: Container = {
      name: 'c',
      volumeMounts: [
        { name: 'data', mountPath: path.join(mounts, 'whole') },
        { name: 'data', mountPath: path.join(mounts, 'part'), subPath: 'sub/dir' },
        { name: 'data', mountPath: path.join(mounts, 'existing') },
        { name: 'data', mountPath: path.join(mounts, 'no-parent', 'x') },
      ],
    };
    const p: Pod = { ...saPod, spec: { containers: [c], volumes: [v] } };
    linkMounts(p, c, scratch, dir);
    expect(fs.readlinkSync(path.join(mounts, 'whole'))).toBe(fs.realpathSync(path.join(claimsDir, 'ns1', 'shared')));
    expect(fs.readlinkSync(path.join(mounts, 'part'))).toBe(path.join(fs.realpathSync(path.join(claimsDir, 'ns1', 'shared')), 'sub/dir'));
    expect(fs.statSync(path.join(claimsDir, 'ns1', 'shared', 'sub', 'dir')).isDirectory()).toBe(true);
    expect(fs.lstatSync(path.join(mounts, 'existing')).isSymbolicLink()).toBe(false);
    expect(fs.existsSync(path.join(mounts, 'no-parent'))).toBe(false);
    // Not under the temp directory given: left alone.
    const c2: Container = { name: 'c2', volumeMounts: [{ name: 'data', mountPath: path.join(mounts, 'other') }] };
    linkMounts({ ...p, spec: { containers: [c2], volumes: [v] } }, c2, scratch, path.join(dir, 'elsewhere'));
    expect(fs.existsSync(path.join(mounts, 'other'))).toBe(false);
    // Any volume: a Secret's files at its mountPath; a dangling link (a Pod that is gone) is replaced.
    fs.mkdirSync(path.join(scratch, 'tls'));
    fs.writeFileSync(path.join(scratch, 'tls', 'tls.crt'), 'cert');
    fs.symlinkSync(path.join(dir, 'gone'), path.join(mounts, 'tls'));
    const c3: Container = { name: 'c3', volumeMounts: [{ name: 'tls', mountPath: path.join(mounts, 'tls') }] };
    linkMounts({ ...p, spec: { containers: [c3], volumes: [{ name: 'tls', secret: { secretName: 'tls' } }] } }, c3, scratch, dir);
    expect(fs.readFileSync(path.join(mounts, 'tls', 'tls.crt'), 'utf8')).toBe('cert');
  });
});
