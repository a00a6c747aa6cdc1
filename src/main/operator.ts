/**
 * Wiring of `svc operator` (ARCHITECTURE "Kubernetes execution"): the engine's run driver, queue
 * processor and scheduler over the Dag and DagRun resources, with every step execution a Pod
 * (adapters/launcher/pod). One replica leads (a Lease); the others wait to take over. The leader drives
 * every active run: runs the API creates are picked up from the DagRun watch at once, runs a dead
 * leader left are resumed (their Pods adopted by name), queued runs are started by the queue processor.
 * It does so in its own namespace and, with SVC_WATCH_NAMESPACES, in others: a list, or every namespace
 * holding a Dag (`all`, found by one cluster-wide watch); one unit per namespace (operator-unit.ts).
 * Logs are files under SVC_DATA_DIR, a volume the operator and every step Pod mount (SVC_DATA_CLAIM), or
 * objects in a bucket (SVC_S3_BUCKET).
 */
import { labelPodSecurity, logPodPolicy } from './pod-policy-log.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { apiProblem, defaultNamespace, loadKubeConfig } from '../adapters/kube/client.js';
import { DagNamespaces } from '../adapters/kube/dag-namespaces.js';
import { NodeLeases } from '../adapters/launcher/pod/node-leases.js';
import { TokenBucket } from '../adapters/launcher/pod/rate-limit.js';
import type { Config } from '../config/config.js';
import type { OperatorConfig } from '../config/operator-config.js';
import { DomainError } from '../core/errors.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import { LeaderElector } from '../operator/leader.js';
import { startUnit, type NamespaceUnit, type OperatorShared } from './operator-unit.js';

export interface RunningOperator {
  namespace: string;
  identity: string;
  /** Resolves once this replica leads and drives runs. */
  leading: Promise<void>;
  /** What the operator's metrics read. */
  stats: { isLeader(): boolean; driving(): number; waiting(): number; stepPods(): number };
  close(): Promise<void>;
}

/** On shutdown, runs in flight get this long to save what they saw; the next leader resumes them. */
const SHUTDOWN_GRACE_MS = 2000;

function checkSettings(config: Readonly<Config>, oc: OperatorConfig): void {
  if (config.systemEnv.SVC_S3_BUCKET && oc.dataClaim) {
    throw new DomainError('bad_request', 'step logs go either to the bucket (SVC_S3_BUCKET) or to the data claim (SVC_DATA_CLAIM): set one');
  }
  if (oc.dataClaim && oc.watchNamespaces) {
    throw new DomainError('bad_request', 'a Pod mounts only claims of its own namespace: with SVC_WATCH_NAMESPACES, step logs go to a bucket (SVC_S3_BUCKET), not to the data claim (SVC_DATA_CLAIM)');
  }
}

export async function startOperator(config: Readonly<Config>, oc: OperatorConfig, log: EngineLogger, onLost: () => void): Promise<RunningOperator> {
  const kc = loadKubeConfig(config.kubeconfig);
  const namespace = defaultNamespace(kc, config.namespace);
  const problem = await apiProblem(kc, namespace);
  if (problem) throw new DomainError('service_unavailable', `cannot operate in namespace ${namespace}: ${problem}`);
  checkSettings(config, oc);
  const identity = oc.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const warn = (what: string) => (e: unknown) => log.warn(what, { error: e instanceof Error ? e.message : String(e) });
  const elector = new LeaderElector(kc, { namespace, name: 'svc-operator', identity, leaseSeconds: oc.leaseSeconds, renewMs: Math.max(1000, Math.floor(oc.leaseSeconds * 1000 / 5)), retryMs: 1000, onError: warn('Lease request failed') });
  const shared: OperatorShared = {
    kc, config, oc, log, identity, home: namespace, elector, warn,
    nodes: new NodeLeases(kc, 3000, warn('Failed to read the Node Leases')),
    createLimit: new TokenBucket(oc.podCreateQps, oc.podCreateQps * 2),
  };
  logPodPolicy(config.podPolicy, log);
  const units = new Map<string, NamespaceUnit>();
  let leads = false;
  let closed = false;

  /** Another namespace's unit starts on its own: one that cannot yet (not there, no rights) holds up no other. */
  const begin = (unit: NamespaceUnit): void => void unit.begin().catch(warn(`Failed to start driving the runs of namespace ${unit.namespace}`));
  /** Drives the runs of `ns` from now on (at once when this replica leads, else once it does). */
  const serve = (ns: string): void => {
    if (closed || units.has(ns)) return;
    const unit = startUnit(shared, ns);
    units.set(ns, unit);
    if (ns !== namespace) log.info('Watching namespace', { namespace: ns });
    if (oc.podSecurity) labelPodSecurity(kc, ns, oc.podSecurity, log);
    if (leads) begin(unit);
  };
  serve(namespace);
  for (const ns of Array.isArray(oc.watchNamespaces) ? oc.watchNamespaces : []) serve(ns);
  const discovery = oc.watchNamespaces === 'all'
    ? new DagNamespaces(kc, { ...(oc.namespaceSelector ? { selector: oc.namespaceSelector } : {}), onNamespace: serve, onError: warn('The cluster-wide Dag watch failed; it restarts') })
    : undefined;

  const leading = (async () => {
    log.info('Waiting to lead', { namespace, identity });
    await elector.lead(() => {
      log.error('Lost the operator Lease: stopping', { identity });
      onLost();
    });
    if (closed) return;
    log.info('Leading', { namespace, identity, ...(oc.watchNamespaces ? { watching: oc.watchNamespaces === 'all' ? 'all' : oc.watchNamespaces.join(',') } : {}) });
    leads = true;
    shared.nodes.start();
    for (const u of units.values()) if (u.namespace !== namespace) begin(u);
    await units.get(namespace)!.begin();
    discovery?.start();
  })();
  leading.catch(warn('Failed to start leading'));

  const sum = (f: (u: NamespaceUnit) => number): number => [...units.values()].reduce((n, u) => n + f(u), 0);
  return {
    namespace, identity, leading,
    stats: { isLeader: () => elector.isLeader && !closed, driving: () => sum((u) => u.stats.driving()), waiting: () => sum((u) => u.stats.waiting()), stepPods: () => sum((u) => u.stats.stepPods()) },
    async close() {
      closed = true;
      await discovery?.close();
      await Promise.all([...units.values()].map((u) => u.stop(SHUTDOWN_GRACE_MS)));
      shared.nodes.stop();
      await elector.resign();
      await Promise.allSettled([...units.values()].map((u) => u.release()));
    },
  };
}
