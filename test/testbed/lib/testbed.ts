/**
 * Starts and stops the Kubernetes test bed: etcd and kube-apiserver on loopback, kube-controller-manager,
 * and node agents, all as detached processes under one directory, described by `<dir>/state.json`.
 * Used by the `hack/testbed` command and by the jest global setup.
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NodeConfig } from '../agent/agent.js';
import type { ImageEntrypoint } from '../agent/images.js';

export interface ProcessInfo {
  name: string;
  pid: number;
  log: string;
}
export interface AgentInfo extends ProcessInfo {
  nodes: NodeConfig[];
  dir: string;
}
export interface TestbedState {
  dir: string;
  bin: string;
  kubeconfig: string;
  server: string;
  token: string;
  ports: { etcd: number; etcdPeer: number; apiserver: number };
  versions: { kubernetes: string; etcd: string };
  control: ProcessInfo[];
  agents: AgentInfo[];
  startedAt: string;
  startSeconds: number;
}

export interface UpOptions {
  dir: string;
  bin: string;
  nodes?: NodeConfig[];
  log?: (msg: string) => void;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** Compiled agent entry point: this file runs compiled (.build/lib/testbed.js) or as source under ts-jest. */
export const agentMain = path.basename(path.dirname(here)) === '.build' ? path.resolve(here, '../agent/main.js') : path.resolve(here, '../.build/agent/main.js');
const repoRoot = path.basename(path.dirname(here)) === '.build' ? path.resolve(here, '../../../..') : path.resolve(here, '../../..');
export const DEFAULT_NODES: NodeConfig[] = [
  { name: 'node-a', labels: { 'svc.testbed/pool': 'a' } },
  { name: 'node-b', labels: { 'svc.testbed/pool': 'b' } },
];
export const FEATURE_GATES = 'TranslateStreamCloseWebsocketRequests=false';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** CA, API server serving cert, kubelet client cert (API server -> agents), agent serving cert, SA key. */
function makePki(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3650', '-subj', '/CN=svc-testbed-ca', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], dir);
  const leaf = (name: string, subj: string, ext: string[]): void =>
    openssl(['req', '-x509', ...ec, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '3650', '-subj', subj, ...ext.flatMap((e) => ['-addext', e])], dir);
  leaf('apiserver', '/CN=kube-apiserver', ['subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local', 'extendedKeyUsage=serverAuth', 'basicConstraints=CA:FALSE']);
  leaf('kubelet-client', '/O=system:masters/CN=kube-apiserver-kubelet-client', ['extendedKeyUsage=clientAuth', 'basicConstraints=CA:FALSE']);
  leaf('agent', '/CN=svc-testbed-agent', ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'extendedKeyUsage=serverAuth', 'basicConstraints=CA:FALSE']);
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'sa.key'], dir);
  openssl(['pkey', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
}

function kubeconfig(server: string, caFile: string, token: string): string {
  const ca = fs.readFileSync(caFile).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: svc-testbed',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    '- name: admin',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: svc-testbed',
    '  context:',
    '    cluster: svc-testbed',
    '    user: admin',
    '    namespace: default',
    'current-context: svc-testbed',
    '',
  ].join('\n');
}

function launch(name: string, cmd: string, args: string[], logDir: string, env: NodeJS.ProcessEnv = process.env): ProcessInfo {
  const log = path.join(logDir, `${name}.log`);
  const fd = fs.openSync(log, 'a');
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', fd, fd], env });
  fs.closeSync(fd);
  child.unref();
  if (!child.pid) throw new Error(`cannot start ${cmd}`);
  return { name, pid: child.pid, log };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

function get(url: string, ca: Buffer | undefined, token?: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca, headers: token ? { Authorization: `Bearer ${token}` } : {}, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', (e) => resolve({ code: 0, body: e.message }));
    req.on('timeout', () => req.destroy(new Error('timeout')));
  });
}

async function waitFor(what: string, proc: ProcessInfo | undefined, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    if (proc && !alive(proc.pid)) throw new Error(`${proc.name} exited while waiting for ${what}; its log ${proc.log} ends with:\n${tail(proc.log)}`);
    await sleep(200);
  }
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}${proc ? `; ${proc.log} ends with:\n${tail(proc.log)}` : ''}`);
}

export function statePath(dir: string): string {
  return path.join(dir, 'state.json');
}
export function readState(dir: string): TestbedState | undefined {
  try {
    return JSON.parse(fs.readFileSync(statePath(dir), 'utf8')) as TestbedState;
  } catch {
    return undefined;
  }
}
function writeState(s: TestbedState): void {
  const tmp = `${statePath(s.dir)}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(s, null, 2));
  fs.renameSync(tmp, statePath(s.dir));
}

function versionOf(bin: string): { kubernetes: string; etcd: string } {
  const text = fs.readFileSync(path.join(bin, '..', 'VERSIONS'), 'utf8');
  return { kubernetes: /^kubernetes (\S+)/m.exec(text)?.[1] ?? '?', etcd: /^etcd (\S+)/m.exec(text)?.[1] ?? '?' };
}

/**
 * Images the agents stand in for with local directories: the svc image is this repository's build
 * (dist/image: the step entry binary), plus SVC_TESTBED_IMAGES (`repository=dir,...`).
 */
export function testbedImages(): Record<string, string> {
  const images: Record<string, string> = { svc: path.join(repoRoot, 'dist', 'image') };
  for (const pair of (process.env.SVC_TESTBED_IMAGES ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq > 0) images[pair.slice(0, eq)] = path.resolve(pair.slice(eq + 1));
  }
  return images;
}

/** The Node 24 the project pins (node_modules/.bin/node) when installed, else the one running this. */
export function nodeBinary(): string {
  const pinned = path.join(repoRoot, 'node_modules', '.bin', 'node');
  return fs.existsSync(pinned) ? pinned : process.execPath;
}

/**
 * Entrypoints of the images the agents run containers of without a command: the svc image (this
 * repository's `bin/svc.js` on the pinned Node; the Dockerfile's ENTRYPOINT ["svc"], CMD ["server"]),
 * plus SVC_TESTBED_ENTRYPOINTS, a JSON object `{"<repository>": {"entrypoint": [...], "cmd": [...]}}`.
 */
export function testbedEntrypoints(): Record<string, ImageEntrypoint> {
  const entrypoints: Record<string, ImageEntrypoint> = { svc: { entrypoint: [nodeBinary(), path.join(repoRoot, 'bin', 'svc.js')], cmd: ['server'] } };
  const extra = process.env.SVC_TESTBED_ENTRYPOINTS;
  if (!extra) return entrypoints;
  const bad = (why: string): Error => new Error(`SVC_TESTBED_ENTRYPOINTS: ${why}; expected {"<repository>": {"entrypoint": ["prog", ...], "cmd": [...]}}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(extra);
  } catch (e) {
    throw bad((e as Error).message);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('not a JSON object');
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
  for (const [repo, e] of Object.entries(parsed as Record<string, { entrypoint?: unknown; cmd?: unknown }>)) {
    if (!strings(e?.entrypoint) || (e.cmd !== undefined && !strings(e.cmd))) throw bad(`${repo}: entrypoint (and cmd) must be lists of strings`);
    entrypoints[repo] = { entrypoint: e.entrypoint, ...(e.cmd ? { cmd: e.cmd } : {}) };
  }
  return entrypoints;
}

/**
 * The svc image has `svc` on its PATH (the Dockerfile links it into /usr/local/bin): step Pods of http,
 * jq, ... steps run `svc run-step`. Here a script under the test bed's directory stands for it.
 */
function withSvcOnPath(entrypoints: Record<string, ImageEntrypoint>, dir: string): Record<string, ImageEntrypoint> {
  const bin = path.join(dir, 'images', 'svc-bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'svc'), `#!/bin/sh\nexec '${nodeBinary()}' '${path.join(repoRoot, 'bin', 'svc.js')}' "$@"\n`, { mode: 0o755 });
  const svc = entrypoints.svc!;
  return { ...entrypoints, svc: { ...svc, env: { ...svc.env, PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` } } };
}

/** The PersistentVolumeClaims' data, shared by the test bed's agents: `<dir>/volumes/<namespace>/<claim>`. */
export function claimsDir(state: TestbedState): string {
  return path.join(state.dir, 'volumes');
}

/** Starts one agent process for `nodes` and waits until its Nodes are registered. */
export async function startAgent(state: TestbedState, nodes: NodeConfig[], opts: { leaseDurationSeconds?: number; renewIntervalSeconds?: number } = {}): Promise<AgentInfo> {
  const name = `agent-${nodes.map((n) => n.name).join('+')}`;
  const dir = path.join(state.dir, 'agents', nodes.map((n) => n.name).join('+'));
  fs.mkdirSync(dir, { recursive: true });
  const pki = path.join(state.dir, 'pki');
  const cfg = {
    kubeconfig: state.kubeconfig,
    dir,
    tls: { cert: path.join(pki, 'agent.crt'), key: path.join(pki, 'agent.key'), ca: path.join(pki, 'ca.crt') },
    nodes,
    leaseDurationSeconds: opts.leaseDurationSeconds ?? 10,
    renewIntervalSeconds: opts.renewIntervalSeconds ?? 2,
    kubeletVersion: state.versions.kubernetes,
    apiServer: { host: '127.0.0.1', port: state.ports.apiserver },
    images: testbedImages(),
    entrypoints: withSvcOnPath(testbedEntrypoints(), state.dir),
    claimsDir: claimsDir(state),
  };
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg, null, 2));
  const info: AgentInfo = { ...launch(name, process.execPath, [agentMain, path.join(dir, 'config.json')], path.join(state.dir, 'logs')), nodes, dir };
  await waitFor(`${name} to be ready`, info, 60000, async () => /\] ready$/m.test(fs.readFileSync(info.log, 'utf8')));
  const fresh = readState(state.dir) ?? state;
  fresh.agents.push(info);
  writeState(fresh);
  state.agents = fresh.agents;
  return info;
}

/** Stops processes: SIGTERM to each process group, SIGKILL after `graceMs`. */
export async function stopProcesses(procs: ProcessInfo[], graceMs = 10000): Promise<void> {
  const signal = (pid: number, sig: NodeJS.Signals): void => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* gone */
      }
    }
  };
  for (const p of procs) if (alive(p.pid)) signal(p.pid, 'SIGTERM');
  const until = Date.now() + graceMs;
  while (Date.now() < until && procs.some((p) => alive(p.pid))) await sleep(100);
  for (const p of procs) if (alive(p.pid)) signal(p.pid, 'SIGKILL');
}

/** Stops one agent (its Nodes' Leases go stale) and forgets it. */
export async function stopAgent(state: TestbedState, agent: AgentInfo): Promise<void> {
  await stopProcesses([agent]);
  sweep(agent.dir);
  const fresh = readState(state.dir) ?? state;
  fresh.agents = fresh.agents.filter((a) => a.pid !== agent.pid);
  writeState(fresh);
  state.agents = fresh.agents;
}

/** Kills container process groups an agent recorded that are still around (an agent killed by SIGKILL). */
function sweep(agentDir: string): void {
  let pgids: string[] = [];
  try {
    pgids = fs.readFileSync(path.join(agentDir, 'pgids'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return;
  }
  for (const id of new Set(pgids)) {
    try {
      process.kill(-Number(id), 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

export async function up(o: UpOptions): Promise<TestbedState> {
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const dir = path.resolve(o.dir);
  const existing = readState(dir);
  if (existing && existing.control.some((p) => alive(p.pid))) throw new Error(`a test bed is already up in ${dir} (hack/testbed down --dir ${dir})`);
  fs.mkdirSync(dir, { recursive: true });
  for (const sub of ['etcd', 'logs', 'agents', 'pki', 'volumes']) fs.rmSync(path.join(dir, sub), { recursive: true, force: true });
  const logs = path.join(dir, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const pki = path.join(dir, 'pki');
  makePki(pki);
  const token = crypto.randomBytes(24).toString('hex');
  fs.writeFileSync(path.join(pki, 'tokens.csv'), `${token},admin,admin,system:masters\n`);
  const ca = fs.readFileSync(path.join(pki, 'ca.crt'));
  const ports = { etcd: await freePort(), etcdPeer: await freePort(), apiserver: await freePort() };
  const server = `https://127.0.0.1:${ports.apiserver}`;
  const state: TestbedState = {
    dir,
    bin: o.bin,
    kubeconfig: path.join(dir, 'kubeconfig'),
    server,
    token,
    ports,
    versions: versionOf(o.bin),
    control: [],
    agents: [],
    startedAt: new Date().toISOString(),
    startSeconds: 0,
  };
  fs.writeFileSync(state.kubeconfig, kubeconfig(server, path.join(pki, 'ca.crt'), token), { mode: 0o600 });
  writeState(state);
  const bin = (b: string): string => path.join(o.bin, b);
  try {
    log(`etcd on 127.0.0.1:${ports.etcd}`);
    const etcd = launch('etcd', bin('etcd'), [
      '--name=testbed',
      `--data-dir=${path.join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${ports.etcd}`,
      `--advertise-client-urls=http://127.0.0.1:${ports.etcd}`,
      `--listen-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${ports.etcdPeer}`,
      `--initial-cluster=testbed=http://127.0.0.1:${ports.etcdPeer}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ], logs);
    state.control.push(etcd);
    writeState(state);
    await waitFor('etcd /health', etcd, 30000, async () => {
      const r = await fetch(`http://127.0.0.1:${ports.etcd}/health`).then((x) => x.text()).catch(() => '');
      return r.includes('"health":"true"');
    });

    log(`kube-apiserver on ${server}`);
    const apiserver = launch('kube-apiserver', bin('kube-apiserver'), [
      `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${ports.apiserver}`,
      `--cert-dir=${pki}`,
      `--tls-cert-file=${path.join(pki, 'apiserver.crt')}`,
      `--tls-private-key-file=${path.join(pki, 'apiserver.key')}`,
      `--client-ca-file=${path.join(pki, 'ca.crt')}`,
      `--token-auth-file=${path.join(pki, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      `--service-account-key-file=${path.join(pki, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(pki, 'sa.key')}`,
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      '--api-audiences=https://kubernetes.default.svc.cluster.local',
      '--service-cluster-ip-range=10.96.0.0/16',
      `--kubelet-client-certificate=${path.join(pki, 'kubelet-client.crt')}`,
      `--kubelet-client-key=${path.join(pki, 'kubelet-client.key')}`,
      `--kubelet-certificate-authority=${path.join(pki, 'ca.crt')}`,
      '--kubelet-preferred-address-types=InternalIP,Hostname',
      // Plugins whose controllers the test bed does not run (node lifecycle, PVC protection, pod groups):
      '--disable-admission-plugins=TaintNodesByCondition,StorageObjectInUseProtection,PodGroupProtection',
      '--endpoint-reconciler-type=none',
      // Admission webhooks and aggregated APIs reach a Service through its endpoints (Pod IPs, see
      // NodeConfig.podIP): nothing routes ClusterIPs.
      '--enable-aggregator-routing=true',
      '--allow-privileged=true',
      '--profiling=false',
      `--feature-gates=${FEATURE_GATES}`,
      '--v=1',
    ], logs);
    state.control.push(apiserver);
    writeState(state);
    await waitFor('kube-apiserver /readyz', apiserver, 90000, async () => (await get(`${server}/readyz`, ca, token)).code === 200);
    await waitFor('namespace kube-node-lease', apiserver, 30000, async () => (await get(`${server}/api/v1/namespaces/kube-node-lease`, ca, token)).code === 200);

    log('kube-controller-manager');
    const kcm = launch('kube-controller-manager', bin('kube-controller-manager'), [
      `--kubeconfig=${state.kubeconfig}`,
      '--leader-elect=false',
      '--secure-port=0',
      `--controllers=${CONTROLLERS.join(',')}`,
      `--service-account-private-key-file=${path.join(pki, 'sa.key')}`,
      `--root-ca-file=${path.join(pki, 'ca.crt')}`,
      '--use-service-account-credentials=false',
      '--concurrent-gc-syncs=5',
      '--v=1',
    ], logs);
    state.control.push(kcm);
    writeState(state);
    await waitFor('the default ServiceAccount (serviceaccount controller)', kcm, 60000, async () => (await get(`${server}/api/v1/namespaces/default/serviceaccounts/default`, ca, token)).code === 200);

    const nodes = o.nodes ?? DEFAULT_NODES;
    log(`agents for ${nodes.map((n) => n.name).join(', ')}`);
    await Promise.all(nodes.map((n) => startAgent(state, [n])));
    const fresh = readState(dir) ?? state;
    fresh.startSeconds = Math.round((Date.now() - t0) / 100) / 10;
    writeState(fresh);
    log(`up in ${fresh.startSeconds}s`);
    return fresh;
  } catch (e) {
    await down(dir, { keep: true });
    throw e;
  }
}

export const CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'clusterrole-aggregation-controller',
  'resourcequota-controller',
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'disruption-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'pod-garbage-collector-controller',
  'validatingadmissionpolicy-status-controller',
];

/** Stops everything `up` started in `dir` (agents first) and removes the directory unless `keep`. */
export async function down(dir: string, o: { keep?: boolean } = {}): Promise<boolean> {
  const state = readState(path.resolve(dir));
  if (!state) return false;
  await stopProcesses(state.agents);
  for (const a of state.agents) sweep(a.dir);
  // Agents started by tests and not stopped by them are in state.json too; leftovers of any agent dir:
  try {
    for (const d of fs.readdirSync(path.join(state.dir, 'agents'))) sweep(path.join(state.dir, 'agents', d));
  } catch {
    /* none */
  }
  await stopProcesses([...state.control].reverse());
  if (!o.keep) fs.rmSync(state.dir, { recursive: true, force: true });
  else writeState({ ...state, agents: [], control: [] });
  return true;
}
