/**
 * What `svc operator` runs for one namespace: the engine's run driver, queue processor, scheduler and
 * kubectl run requests over that namespace's Dags and DagRuns, with each step execution a Pod in it
 * (adapters/launcher/pod). An operator has one for its own namespace, and one for each other namespace it
 * watches (SVC_WATCH_NAMESPACES). Runs are keyed by DAG name and run id within a namespace, so each unit
 * has its own stores, watches, events, log place (namespace-logs.ts) and `provider: env` Secret (the
 * Secret named SVC_SECRET_ENV_FROM in the run's own namespace: a DAG of one namespace never reads
 * another's); the leader Lease, the Node heartbeats and the Pod creation rate are the operator's, shared.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Launcher } from '../core/ports/executor.js';
import { RUN_STEP_TYPES } from '../core/run-step.js';
import { SmtpNotifier } from '../runtime/mail/notifier.js';
import { OtlpRunTracer } from '../adapters/otel/otlp-tracer.js';
import type { StepType } from '../core/spec/types.js';
import { Secrets } from '../adapters/kube/client.js';
import { SecretEnvProvider } from '../adapters/kube/secret-env.js';
import { KubeDagStore } from '../adapters/kube/dag-store.js';
import { KubeRunControls } from '../adapters/kube/run-controls.js';
import { KubeAdmissionLock } from '../adapters/kube/admission-lease.js';
import { KubeRunStore, type RunChange } from '../adapters/kube/run-store.js';
import { PodLauncher } from '../adapters/launcher/pod/pod-launcher.js';
import { AgentLauncher, containerSteps } from '../adapters/launcher/pod/agent-launcher.js';
import type { PodSettings } from '../adapters/launcher/pod/pod-spec.js';
import { PodWatch } from '../adapters/launcher/pod/pod-watch.js';
import type { NodeLeases } from '../adapters/launcher/pod/node-leases.js';
import type { TokenBucket } from '../adapters/launcher/pod/rate-limit.js';
import type { Config } from '../config/config.js';
import type { OperatorConfig } from '../config/operator-config.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import { runKeyOf, type RunKey } from '../core/ports/run-store.js';
import { RunStatus, isRunTerminal } from '../core/run/status.js';
import type { EngineDeps } from '../engine/deps.js';
import { StoreDagCatalog } from '../engine/services/dag-catalog.js';
import { LaunchService } from '../engine/services/launch-service.js';
import { QueueProcessor } from '../engine/services/queue-processor.js';
import { RunService } from '../engine/services/run-service.js';
import { Scheduler } from '../engine/services/scheduler.js';
import type { LeaderElector } from '../operator/leader.js';
import { LeaderOwnership } from '../operator/ownership.js';
import { WatchedRunEvents } from '../operator/run-events.js';
import { RunRequests } from '../operator/run-requests.js';
import { hitlLauncher } from '../runtime/hitl.js';
import { BuiltinSecretProvider } from '../runtime/secrets/providers.js';
import { timeIds } from './embedded.js';
import { dagSource } from './kubernetes.js';
import { namespaceLogs } from './namespace-logs.js';
import { schedulerState, unreadableTo } from './server/runs.js';

/** What every unit of one operator shares. */
export interface OperatorShared {
  kc: KubeConfig;
  config: Readonly<Config>;
  oc: OperatorConfig;
  log: EngineLogger;
  identity: string;
  /** The operator's own namespace: its Leases, svc's own objects. */
  home: string;
  elector: LeaderElector;
  nodes: NodeLeases;
  createLimit: TokenBucket;
  warn(what: string): (e: unknown) => void;
}

export interface NamespaceUnit {
  readonly namespace: string;
  /** Once this replica leads: watch the step Pods, take over the runs in flight, start queues and schedules. */
  begin(): Promise<void>;
  stats: { driving(): number; waiting(): number; stepPods(): number };
  /** Stops driving (runs in flight get `graceMs` to save what they saw). */
  stop(graceMs: number): Promise<void>;
  /** Closes the watches and the log store (after stop). */
  release(): Promise<void>;
}

/** http, jq, ssh, ... steps run `svc run-step` in step Pods of the svc image (pod-spec.ts). */
function runStepLaunchers(pods: Launcher): Partial<Record<StepType, Launcher>> {
  return Object.fromEntries(RUN_STEP_TYPES.map((t) => [t, pods]));
}

/**
 * svc's ServiceAccount for steps, its data claim and its protected objects are in its own namespace; in
 * another, step Pods run as that namespace's default ServiceAccount (without a token, as always).
 */
function podSettings(sh: OperatorShared, namespace: string): PodSettings {
  const { oc, config } = sh;
  const own = namespace === sh.home;
  return {
    namespace, stepImage: oc.stepImage, entryImage: oc.entryImage, entryDelivery: oc.entryDelivery, stopGraceSeconds: oc.stopGraceSeconds,
    ...(own && oc.stepServiceAccount ? { serviceAccountName: oc.stepServiceAccount } : {}),
    ...(own && oc.dataClaim ? { dataVolume: { claimName: oc.dataClaim, mountPath: config.dataDir } } : {}),
  };
}

function launchers(sh: OperatorShared, namespace: string, store: KubeRunStore, pods: PodWatch, place: ReturnType<typeof namespaceLogs>) {
  const { kc, oc, log, warn } = sh;
  const settings = podSettings(sh, namespace);
  const owner = async (key: RunKey): Promise<{ name: string; uid: string }> => {
    const run = await store.get(key);
    if (!run) throw new Error(`dag-run ${key.dagRunId} of ${key.dagName} is gone`);
    return { name: run.metadata.name, uid: run.metadata.uid };
  };
  const shell = new PodLauncher(kc, pods, {
    settings, files: place.files, owner, retention: oc.podRetention, createLimit: sh.createLimit, nodes: sh.nodes,
    ...(namespace === sh.home ? { protect: { secrets: oc.protectedSecrets ?? [], serviceAccounts: oc.protectedServiceAccounts ?? [] } } : {}),
    // The same policy in every namespace the operator serves (cluster-wide too).
    policy: sh.config.podPolicy,
    onError: (what, e) => warn(`Failed to ${what}`)(e),
    onWaiting: (req, reason) => log.info(reason ? 'Step Pod is waiting' : 'Step Pod stopped waiting', { namespace, dag: req.identity.dagName, dagRunId: req.identity.dagRunId, step: req.identity.node, ...(reason ? { reason } : {}) }),
  });
  const fsFiles = place.fsFiles;
  const agent = fsFiles ? new AgentLauncher(kc, pods, { settings, files: fsFiles, owner, createLimit: sh.createLimit, policy: sh.config.podPolicy, agentDir: (req) => fsFiles.agentDir(req) }) : undefined;
  return { shell, agent };
}

/**
 * The step Pod watch's first list, retried with backoff: a listed namespace may not exist yet, or not have
 * the operator's RoleBinding yet. Its runs wait meanwhile (their DagRun watch retries by itself).
 */
async function startWatching(pods: PodWatch, stopped: () => boolean, warn: (e: unknown) => void): Promise<void> {
  for (let ms = 1000; !stopped(); ms = Math.min(ms * 2, 30_000)) {
    try {
      return await pods.start();
    } catch (e) {
      warn(e);
      await new Promise((r) => setTimeout(r, ms));
    }
  }
}

export function startUnit(sh: OperatorShared, namespace: string): NamespaceUnit {
  const { kc, config, oc, log, warn, identity } = sh;
  // Only unfinished runs in memory: a run leaves the cache when it ends (memory follows active runs).
  const store = new KubeRunStore(kc, namespace, { cache: { slimFinished: true, unfinishedOnly: true } });
  const dags = new KubeDagStore(kc, namespace, { cache: true });
  const place = namespaceLogs(config, log, namespace, sh.home);
  const pods = new PodWatch(kc, namespace, warn('The step Pod watch failed; it restarts'));
  const { shell, agent } = launchers(sh, namespace, store, pods, place);
  const events = new WatchedRunEvents();
  const clock = { now: () => Date.now() };
  const engine: EngineDeps = {
    store, logs: place.logs, launchers: { ...runStepLaunchers(shell), shell, hitl: hitlLauncher, container: containerSteps(shell, agent) }, events,
    ownership: new LeaderOwnership(sh.elector, identity), controls: new KubeRunControls(kc, namespace),
    secrets: new SecretEnvProvider(new BuiltinSecretProvider(), new Secrets(kc, namespace), oc.secretEnvFrom),
    dags: dagSource(dags), clock, ids: timeIds(clock.now), log, notifier: new SmtpNotifier(), tracer: new OtlpRunTracer(),
    // The operator's own environment is not the steps': their images bring theirs.
    systemEnv: {}, cwd: '/', defaultShell: ['/bin/sh'], implicitDotenv: false, maxCallDepth: config.maxCallDepth,
    // Scheduled starts check singleton and maxActiveRuns against the API replicas' admissions too; the API
    // serves the operator's own namespace only, so elsewhere the leader is the only one that admits.
    ...(namespace === sh.home ? { admission: new KubeAdmissionLock(kc, store, { namespace, identity, onError: warn('Could not free the run admission Lease') }) } : {}),
  };
  const runs = new RunService(engine);
  const launcher = new LaunchService(engine, runs, { drives: true, maxDriving: oc.maxActiveRuns });
  const queues = new QueueProcessor(engine, launcher, config.queues);
  const scheduler = new Scheduler({
    catalog: new StoreDagCatalog(dags), launcher, runs, store, clock, log, state: schedulerState(place.dataDir, unreadableTo(log)), ...(config.tz ? { tz: config.tz } : {}),
  });
  const requests = new RunRequests({ dags: engine.dags, launcher, log, answer: (r, a) => store.answerRequest(r, a, new Date(clock.now())) });
  let unsubscribe = (): void => undefined;
  let stopping = false;
  const stopped = (): boolean => stopping;

  const onChange = (c: RunChange): void => {
    if (c.type === 'request') return requests.handle(c.request);
    if (c.type === 'delete') return;
    const key = runKeyOf(c.run);
    const box = c.run.spec.definition.container;
    if (box && isRunTerminal(c.run.status.run.status)) {
      void agent?.endRun({ ...key, attemptId: c.run.status.attemptId }, box.keepContainer).catch(warn('Failed to remove a run\'s container Pod'));
    }
    queues.observe(c.run);
    if (c.specChanged) events.notify(key);
    // A run the API accepted: drive it now (a queued one waits for the queue processor).
    if (!c.run.spec.parent && c.run.status.run.status === RunStatus.NotStarted) launcher.drive(key);
  };

  return {
    namespace,
    async begin() {
      await startWatching(pods, stopped, warn(`The step Pod watch of namespace ${namespace} could not start; retrying`));
      await store.whenSynced();
      unsubscribe = store.subscribe(onChange);
      for (const r of await store.pendingRequests()) requests.handle(r);
      const n = await launcher.takeOver();
      if (n > 0) log.info('Took over dag-runs', { namespace, runs: n });
      if (config.queuesEnabled) await queues.start(() => launcher.takeOver());
      await scheduler.start();
    },
    stats: { driving: () => launcher.driving, waiting: () => launcher.waitingToDrive, stepPods: () => pods.size() },
    async stop(graceMs) {
      stopping = true;
      scheduler.stop();
      queues.stop();
      unsubscribe();
      await launcher.close(graceMs);
    },
    async release() {
      await Promise.allSettled([pods.close(), store.close(), dags.close(), place.close()]);
    },
  };
}
