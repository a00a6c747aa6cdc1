/**
 * The node agent: plays kubelet (and the scheduler) for one or more Nodes of the test bed.
 * - registers each Node (labels, capacity, Ready, addresses, kubelet endpoint) and renews its Lease in
 *   kube-node-lease every few seconds;
 * - binds unscheduled Pods to a live Node whose labels fit, or reports them Unschedulable;
 * - runs the Pods bound to its Nodes as local processes (runtime.ts) and reports their status;
 * - serves the kubelet endpoints for logs and exec (server.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ImageEntrypoint } from './images.js';
import { ApiError, Kube, Reflector, type ObjectMeta } from './kube.js';
import { PodRunner } from './runtime.js';
import { decide, isLive } from './schedule.js';
import { KubeletServer } from './server.js';
import type { KeyedData, Lease, Node, Pod, Taint } from './types.js';
import type { TokenRequestSpec } from './volumes.js';

export interface NodeConfig {
  name: string;
  labels?: Record<string, string>;
  capacity?: Record<string, string>;
  taints?: Taint[];
  /**
   * The IP its Pods report (status.podIP/podIPs, the downward API), default 127.0.0.1. Endpoints and
   * EndpointSlices refuse loopback addresses: give a host address (e.g. its first non-loopback IPv4) for
   * Pods behind a Service. The Node's InternalIP and the Pods' hostIP stay 127.0.0.1.
   */
  podIP?: string;
}

export interface AgentConfig {
  kubeconfig: string;
  /** State directory: Pod scratch dirs and logs, the process-group list. */
  dir: string;
  tls: { cert: string; key: string; ca: string };
  nodes: NodeConfig[];
  port?: number;
  leaseDurationSeconds?: number;
  renewIntervalSeconds?: number;
  nodeStatusIntervalSeconds?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  kubeletVersion?: string;
  /** Passed to containers as KUBERNETES_SERVICE_HOST/PORT. */
  apiServer?: { host: string; port: number };
  /** Image repository (reference without tag or digest) -> local directory standing for its filesystem. */
  images?: Record<string, string>;
  /** Image repository -> its ENTRYPOINT and CMD, for containers without a command. */
  entrypoints?: Record<string, ImageEntrypoint>;
  /** Directory of the PersistentVolumeClaims' data, `<claimsDir>/<namespace>/<claim>`, shared by all agents. */
  claimsDir?: string;
}

const LEASE_NS = 'kube-node-lease';
const MANAGER = 'svc-testbed-agent';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const isoSeconds = (d = new Date()): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const microTime = (d = new Date()): string => d.toISOString().replace(/Z$/, '000Z');

export class Agent {
  private readonly kube: Kube;
  private readonly server: KubeletServer;
  private readonly ours: Map<string, NodeConfig>;
  private readonly runners = new Map<string, PodRunner>(); // by uid
  private readonly dirty = new Set<PodRunner>();
  private readonly reported = new Map<string, string>(); // uid -> last status JSON sent
  private readonly unschedulable = new Map<string, string>(); // uid -> message reported
  private readonly pods: Reflector<Pod>;
  private readonly nodes: Reflector<Node>;
  private readonly leases: Reflector<Lease>;
  private readonly nodeUids = new Map<string, string>();
  private port = 0;
  private stopped = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private wake?: () => void;
  private readonly pgidFile: string;

  constructor(private readonly cfg: AgentConfig) {
    this.kube = new Kube(cfg.kubeconfig);
    this.ours = new Map(cfg.nodes.map((n) => [n.name, n]));
    fs.mkdirSync(path.join(cfg.dir, 'pods'), { recursive: true });
    this.pgidFile = path.join(cfg.dir, 'pgids');
    this.server = new KubeletServer({
      tls: cfg.tls,
      findPod: (ns, name) => [...this.runners.values()].find((r) => r.pod.metadata.namespace === ns && r.pod.metadata.name === name),
      track: (pgid) => this.track(pgid),
      log: (m) => this.log(m),
    });
    const kick = (): void => this.wake?.();
    this.pods = new Reflector<Pod>(this.kube, '/api/v1/pods', (type, pod) => this.podChanged(type, pod), {}, (m) => this.log(m));
    this.nodes = new Reflector<Node>(this.kube, '/api/v1/nodes', kick, {}, (m) => this.log(m));
    this.leases = new Reflector<Lease>(this.kube, `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NS}/leases`, kick, {}, (m) => this.log(m));
  }

  log(msg: string): void {
    process.stdout.write(`${new Date().toISOString()} [agent ${[...this.ours.keys()].join(',')}] ${msg}\n`);
  }

  private track(pgid: number): void {
    fs.appendFileSync(this.pgidFile, `${pgid}\n`);
  }

  async start(): Promise<void> {
    this.port = await this.server.listen(this.cfg.port ?? 0);
    this.log(`kubelet endpoint https://127.0.0.1:${this.port}`);
    for (const n of this.cfg.nodes) await this.register(n);
    await Promise.all(this.cfg.nodes.map((n) => this.renew(n)));
    const renewMs = (this.cfg.renewIntervalSeconds ?? 2) * 1000;
    this.timers.push(setInterval(() => this.cfg.nodes.forEach((n) => void this.renew(n)), renewMs));
    this.timers.push(setInterval(() => this.cfg.nodes.forEach((n) => void this.nodeStatus(n)), (this.cfg.nodeStatusIntervalSeconds ?? 10) * 1000));
    this.nodes.start();
    this.leases.start();
    this.pods.start();
    await Promise.all([this.nodes.hasSynced(), this.leases.hasSynced(), this.pods.hasSynced()]);
    void this.scheduleLoop();
    void this.statusLoop();
    this.log('ready');
  }

  /** Stops renewing and reporting; kills the containers it runs (unlike a kubelet, so nothing is left behind). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach((t) => clearInterval(t));
    this.pods.stop();
    this.nodes.stop();
    this.leases.stop();
    this.wake?.();
    this.server.close();
    await Promise.all([...this.runners.values()].map((r) => r.terminate(2)));
  }

  // ---- Nodes and Leases ------------------------------------------------------------------------------

  private nodeLabels(n: NodeConfig): Record<string, string> {
    return {
      'kubernetes.io/hostname': n.name,
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch,
      'svc.testbed/agent': 'true',
      ...n.labels,
    };
  }

  private async register(n: NodeConfig): Promise<void> {
    const body = { apiVersion: 'v1', kind: 'Node', metadata: { name: n.name, labels: this.nodeLabels(n) }, spec: { taints: n.taints ?? [] } };
    let node: Node;
    try {
      node = await this.kube.post<Node>('/api/v1/nodes', body);
      this.log(`registered node ${n.name}`);
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 409) throw e;
      node = await this.kube.mergePatch<Node>(`/api/v1/nodes/${n.name}`, { metadata: { labels: this.nodeLabels(n) }, spec: { taints: n.taints ?? [], unschedulable: null } });
      this.log(`re-registered existing node ${n.name}`);
    }
    this.nodeUids.set(n.name, node.metadata.uid ?? '');
    await this.nodeStatus(n);
  }

  private async nodeStatus(n: NodeConfig): Promise<void> {
    if (this.stopped) return;
    const now = isoSeconds();
    const cap = { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '50Gi', ...n.capacity };
    const cond = (type: string, status: string, reason: string, message: string): object => ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: this.transition(n.name, type, now) });
    const status = {
      capacity: cap,
      allocatable: cap,
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        cond('Ready', 'True', 'KubeletReady', 'svc test bed agent is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: '127.0.0.1' },
        { type: 'Hostname', address: n.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: this.port } },
      nodeInfo: {
        machineID: n.name,
        systemUUID: n.name,
        bootID: `${process.pid}`,
        kernelVersion: os.release(),
        osImage: 'svc test bed (local processes)',
        containerRuntimeVersion: 'svc-testbed://0.1.0',
        kubeletVersion: this.cfg.kubeletVersion ?? 'v0.0.0-svc-testbed',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: process.arch === 'x64' ? 'amd64' : process.arch,
      },
    };
    try {
      await this.kube.mergePatch(`/api/v1/nodes/${n.name}/status`, { status });
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return void (await this.register(n).catch((err: Error) => this.log(`re-register ${n.name}: ${err.message}`)));
      this.log(`node status ${n.name}: ${(e as Error).message}`);
    }
  }

  private readonly transitions = new Map<string, string>();
  private transition(node: string, type: string, now: string): string {
    const k = `${node}/${type}`;
    if (!this.transitions.has(k)) this.transitions.set(k, now);
    return this.transitions.get(k) ?? now;
  }

  private async renew(n: NodeConfig): Promise<void> {
    if (this.stopped) return;
    const uid = this.nodeUids.get(n.name);
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: n.name,
        namespace: LEASE_NS,
        ...(uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: n.name, uid }] } : {}),
      },
      spec: { holderIdentity: n.name, leaseDurationSeconds: this.cfg.leaseDurationSeconds ?? 10, renewTime: microTime() },
    };
    try {
      await this.kube.apply(`/apis/coordination.k8s.io/v1/namespaces/${LEASE_NS}/leases/${n.name}`, lease, MANAGER);
    } catch (e) {
      this.log(`lease ${n.name}: ${(e as Error).message}`);
    }
  }

  // ---- Scheduling ------------------------------------------------------------------------------------

  private liveNodes(): Node[] {
    const now = Date.now();
    return [...this.nodes.items.values()].filter((n) => isLive(n, this.leases.items.get(`${LEASE_NS}/${n.metadata.name}`), now));
  }

  private async scheduleLoop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.scheduleOnce();
      } catch (e) {
        this.log(`schedule: ${(e as Error).message}`);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, 1000);
        this.wake = () => {
          clearTimeout(t);
          r();
        };
      });
      this.wake = undefined;
    }
  }

  private async scheduleOnce(): Promise<void> {
    const pending = [...this.pods.items.values()].filter(
      (p) => !p.spec.nodeName && !p.metadata.deletionTimestamp && (p.spec.schedulerName ?? 'default-scheduler') === 'default-scheduler' && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
    );
    if (pending.length === 0) return;
    const live = this.liveNodes();
    const load = new Map<string, number>();
    for (const p of this.pods.items.values()) {
      if (p.spec.nodeName && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') load.set(p.spec.nodeName, (load.get(p.spec.nodeName) ?? 0) + 1);
    }
    const reporter = [...live].map((n) => n.metadata.name).sort()[0];
    for (const pod of pending) {
      const d = decide(pod, live, load);
      const m = pod.metadata;
      if (d.kind === 'bind') {
        if (!this.ours.has(d.node)) continue;
        try {
          await this.kube.post(`/api/v1/namespaces/${m.namespace}/pods/${m.name}/binding`, {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name: m.name, namespace: m.namespace, uid: m.uid },
            target: { apiVersion: 'v1', kind: 'Node', name: d.node },
          });
          load.set(d.node, (load.get(d.node) ?? 0) + 1);
          this.unschedulable.delete(m.uid ?? '');
          this.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${m.namespace}/${m.name} to ${d.node}`, 'default-scheduler');
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) this.log(`bind ${m.namespace}/${m.name}: ${(e as Error).message}`);
        }
      } else if (reporter && this.ours.has(reporter) && this.unschedulable.get(m.uid ?? '') !== d.message) {
        const cond = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
        this.unschedulable.set(m.uid ?? '', d.message);
        if (cond?.status === 'False' && cond.message === d.message) continue;
        try {
          await this.kube.mergePatch(`/api/v1/namespaces/${m.namespace}/pods/${m.name}/status`, {
            metadata: { uid: m.uid },
            status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: d.message, lastProbeTime: null, lastTransitionTime: isoSeconds() }] },
          });
          this.event(pod, 'Warning', 'FailedScheduling', d.message, 'default-scheduler');
        } catch (e) {
          this.unschedulable.delete(m.uid ?? '');
          if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) this.log(`unschedulable ${m.namespace}/${m.name}: ${(e as Error).message}`);
        }
      }
    }
  }

  // ---- Pods on our Nodes -----------------------------------------------------------------------------

  private podChanged(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    if (!pod.spec.nodeName) {
      if (type === 'DELETED') this.unschedulable.delete(uid);
      else this.wake?.();
      return;
    }
    if (!this.ours.has(pod.spec.nodeName)) return;
    let runner = this.runners.get(uid);
    if (type === 'DELETED') {
      if (runner) void this.remove(runner, 0, false);
      return;
    }
    if (runner) runner.pod = pod;
    if (pod.metadata.deletionTimestamp) {
      const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
      if (runner) void this.remove(runner, grace, true);
      else void this.finalDelete(pod);
      return;
    }
    if (!runner && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && !this.stopped) {
      runner = new PodRunner(pod, {
        nodeName: pod.spec.nodeName,
        podIP: this.ours.get(pod.spec.nodeName)?.podIP ?? '127.0.0.1',
        podsDir: path.join(this.cfg.dir, 'pods'),
        fetch: (kind, ns, name) => this.fetchKeyed(kind, ns, name),
        getClaim: (ns, name) => this.getOrUndefined<{ metadata: ObjectMeta }>(`/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}`),
        requestToken: (ns, sa, spec) => this.requestToken(ns, sa, spec),
        tokenServer: this.tokenServer(),
        baseEnv: this.baseEnv(),
        changed: (r) => this.markDirty(r),
        event: (p, t, reason, message) => this.event(p, t, reason, message),
        log: (m) => this.log(m),
        track: (pgid) => this.track(pgid),
        backoffInitialMs: this.cfg.backoffInitialMs ?? 2000,
        backoffMaxMs: this.cfg.backoffMaxMs ?? 60000,
        images: this.cfg.images ?? {},
        entrypoints: this.cfg.entrypoints ?? {},
        ...(this.cfg.claimsDir ? { claimsDir: this.cfg.claimsDir } : {}),
      });
      this.runners.set(uid, runner);
      this.log(`running pod ${runner.key} (${uid})`);
      void runner.run();
    }
  }

  private baseEnv(): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
    for (const k of ['LANG', 'TZ', 'TMPDIR']) if (process.env[k]) env[k] = process.env[k] ?? '';
    if (this.cfg.apiServer) {
      env.KUBERNETES_SERVICE_HOST = this.cfg.apiServer.host;
      env.KUBERNETES_SERVICE_PORT = String(this.cfg.apiServer.port);
      env.KUBERNETES_SERVICE_PORT_HTTPS = String(this.cfg.apiServer.port);
    }
    return env;
  }

  private readonly removing = new Set<string>();
  private async remove(runner: PodRunner, grace: number, deleteFromApi: boolean): Promise<void> {
    const uid = runner.pod.metadata.uid ?? '';
    if (this.removing.has(uid)) return;
    this.removing.add(uid);
    try {
      await runner.terminate(grace);
      if (deleteFromApi) {
        await this.flush(runner);
        await this.finalDelete(runner.pod);
      }
    } finally {
      this.runners.delete(uid);
      this.dirty.delete(runner);
      this.reported.delete(uid);
      fs.rmSync(runner.dir, { recursive: true, force: true });
    }
  }

  private async finalDelete(pod: Pod): Promise<void> {
    const m = pod.metadata;
    try {
      await this.kube.delete(`/api/v1/namespaces/${m.namespace}/pods/${m.name}`, { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, preconditions: { uid: m.uid } });
    } catch (e) {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) this.log(`delete ${m.namespace}/${m.name}: ${(e as Error).message}`);
    }
  }

  private fetchKeyed(kind: 'secrets' | 'configmaps', ns: string, name: string): Promise<KeyedData | undefined> {
    return this.getOrUndefined<KeyedData>(`/api/v1/namespaces/${ns}/${kind}/${name}`);
  }

  private async getOrUndefined<T>(apiPath: string): Promise<T | undefined> {
    try {
      return await this.kube.get<T>(apiPath);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }

  private async requestToken(ns: string, sa: string, spec: TokenRequestSpec): Promise<string> {
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec };
    const res = await this.kube.post<{ status: { token: string } }>(`/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, body);
    return res.status.token;
  }

  /** The API server as Pods reach it (apiServer, else the agent's kubeconfig) and the test bed's CA. */
  private tokenServer(): { server: string; caFile: string } {
    const api = this.cfg.apiServer;
    return { server: api ? `https://${api.host}:${api.port}` : this.kube.server.origin, caFile: this.cfg.tls.ca };
  }

  private markDirty(r: PodRunner): void {
    this.dirty.add(r);
    this.wakeStatus?.();
  }

  private wakeStatus?: () => void;
  private async statusLoop(): Promise<void> {
    while (!this.stopped || this.dirty.size) {
      for (const r of [...this.dirty]) {
        this.dirty.delete(r);
        await this.flush(r);
      }
      if (this.dirty.size) continue;
      if (this.stopped) break;
      await new Promise<void>((res) => {
        const t = setTimeout(res, 1000);
        this.wakeStatus = () => {
          clearTimeout(t);
          res();
        };
      });
      this.wakeStatus = undefined;
    }
  }

  private async flush(r: PodRunner): Promise<void> {
    const m = r.pod.metadata;
    const status = r.status();
    const json = JSON.stringify(status);
    if (this.reported.get(m.uid ?? '') === json) return;
    try {
      await this.kube.mergePatch(`/api/v1/namespaces/${m.namespace}/pods/${m.name}/status`, { metadata: { uid: m.uid }, status });
      this.reported.set(m.uid ?? '', json);
    } catch (e) {
      if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return;
      this.log(`status ${r.key}: ${(e as Error).message}`);
      this.dirty.add(r);
      await sleep(500);
    }
  }

  private event(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string, component = 'kubelet'): void {
    const m = pod.metadata;
    const now = isoSeconds();
    const host = pod.spec.nodeName ?? [...this.ours.keys()][0] ?? '';
    void this.kube
      .post(`/api/v1/namespaces/${m.namespace}/events`, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${m.name}.`, namespace: m.namespace },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', name: m.name, namespace: m.namespace, uid: m.uid },
        reason,
        message,
        type,
        source: { component, host },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        reportingComponent: component,
        reportingInstance: host,
      })
      .catch((e: Error) => this.log(`event ${reason}: ${e.message}`));
  }
}
