/**
 * Wiring of `svc operator` (ARCHITECTURE "Kubernetes execution"): the engine's run driver, queue
 * processor and scheduler over the Dag and DagRun resources, with every step execution a Pod
 * (adapters/launcher/pod). One replica leads (a Lease); the others wait to take over. The leader drives
 * every active run: runs the API creates are picked up from the DagRun watch at once, runs a dead
 * leader left are resumed (their Pods adopted by name), queued runs are started by the queue processor.
 * Logs are files under SVC_DATA_DIR, a volume the operator and every step Pod mount (SVC_DATA_CLAIM).
 */
import type { Launcher } from '../core/ports/executor.js';
import { RUN_STEP_TYPES } from '../core/run-step.js';
import { SmtpNotifier } from '../runtime/mail/notifier.js';
import { OtlpRunTracer } from '../adapters/otel/otlp-tracer.js';
import type { StepType } from '../core/spec/types.js';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { apiProblem, defaultNamespace, loadKubeConfig, Secrets } from '../adapters/kube/client.js';
import { SecretEnvProvider } from '../adapters/kube/secret-env.js';
import { KubeDagStore } from '../adapters/kube/dag-store.js';
import { KubeRunControls } from '../adapters/kube/run-controls.js';
import { KubeAdmissionLock } from '../adapters/kube/admission-lease.js';
import { KubeRunStore, type RunChange } from '../adapters/kube/run-store.js';
import { FsPodFiles } from '../adapters/launcher/pod/fs-files.js';
import { PodLauncher } from '../adapters/launcher/pod/pod-launcher.js';
import { AgentLauncher, containerSteps } from '../adapters/launcher/pod/agent-launcher.js';
import type { PodSettings } from '../adapters/launcher/pod/pod-spec.js';
import { PodWatch } from '../adapters/launcher/pod/pod-watch.js';
import { NodeLeases } from '../adapters/launcher/pod/node-leases.js';
import { TokenBucket } from '../adapters/launcher/pod/rate-limit.js';
import type { Config } from '../config/config.js';
import type { OperatorConfig } from '../config/operator-config.js';
import { DomainError } from '../core/errors.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import { runKeyOf, type RunKey } from '../core/ports/run-store.js';
import { RunStatus, isRunTerminal } from '../core/run/status.js';
import type { EngineDeps } from '../engine/deps.js';
import { StoreDagCatalog } from '../engine/services/dag-catalog.js';
import { LaunchService } from '../engine/services/launch-service.js';
import { QueueProcessor } from '../engine/services/queue-processor.js';
import { RunService } from '../engine/services/run-service.js';
import { Scheduler } from '../engine/services/scheduler.js';
import { LeaderElector } from '../operator/leader.js';
import { LeaderOwnership } from '../operator/ownership.js';
import { WatchedRunEvents } from '../operator/run-events.js';
import { RunRequests } from '../operator/run-requests.js';
import { hitlLauncher } from '../runtime/hitl.js';
import { BuiltinSecretProvider } from '../runtime/secrets/providers.js';
import { timeIds } from './embedded.js';
import { dagSource, kubeFsLogs } from './kubernetes.js';
import { s3Logs } from './s3-logs.js';
import { schedulerState } from './server/runs.js';

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

/** http, jq, ssh, ... steps run `svc run-step` in step Pods of the svc image (pod-spec.ts). */
function runStepLaunchers(pods: Launcher): Partial<Record<StepType, Launcher>> {
  return Object.fromEntries(RUN_STEP_TYPES.map((t) => [t, pods]));
}

export async function startOperator(config: Readonly<Config>, oc: OperatorConfig, log: EngineLogger, onLost: () => void): Promise<RunningOperator> {
  const kc = loadKubeConfig(config.kubeconfig);
  const namespace = defaultNamespace(kc, config.namespace);
  const problem = await apiProblem(kc, namespace);
  if (problem) throw new DomainError('service_unavailable', `cannot operate in namespace ${namespace}: ${problem}`);
  if (config.systemEnv.SVC_S3_BUCKET && oc.dataClaim) {
    throw new DomainError('bad_request', 'step logs go either to the bucket (SVC_S3_BUCKET) or to the data claim (SVC_DATA_CLAIM): set one');
  }
  const identity = oc.identity ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const warn = (what: string) => (e: unknown) => log.warn(what, { error: e instanceof Error ? e.message : String(e) });
  // Finished runs are kept slim in the watch cache: the operator's memory follows its active runs.
  // Only unfinished runs in memory: a run leaves the cache when it ends (memory follows active runs).
  const store = new KubeRunStore(kc, namespace, { cache: { slimFinished: true, unfinishedOnly: true } });
  const dags = new KubeDagStore(kc, namespace, { cache: true });
  // Step logs and results: in the bucket (each step Pod gets an upload grant), or files on the data claim.
  const s3 = s3Logs(config, log);
  const logs = s3?.logs ?? kubeFsLogs(config);
  const pods = new PodWatch(kc, namespace, warn('The step Pod watch failed; it restarts'));
  const nodes = new NodeLeases(kc, 3000, warn('Failed to read the Node Leases'));
  const fsFiles = s3 ? undefined : new FsPodFiles(kubeFsLogs(config));
  const files = s3?.podFiles() ?? fsFiles!;
  const createLimit = new TokenBucket(oc.podCreateQps, oc.podCreateQps * 2);
  const settings: PodSettings = {
    namespace, stepImage: oc.stepImage, ...(oc.stepServiceAccount ? { serviceAccountName: oc.stepServiceAccount } : {}), entryImage: oc.entryImage, entryDelivery: oc.entryDelivery, stopGraceSeconds: oc.stopGraceSeconds,
    ...(oc.dataClaim ? { dataVolume: { claimName: oc.dataClaim, mountPath: config.dataDir } } : {}),
  };
  const owner = async (key: RunKey): Promise<{ name: string; uid: string }> => {
    const run = await store.get(key);
    if (!run) throw new Error(`dag-run ${key.dagRunId} of ${key.dagName} is gone`);
    return { name: run.metadata.name, uid: run.metadata.uid };
  };
  const shell = new PodLauncher(kc, pods, {
    settings, files, owner, retention: oc.podRetention, createLimit,
    protect: { secrets: oc.protectedSecrets ?? [], serviceAccounts: oc.protectedServiceAccounts ?? [] },
    onError: (what, e) => warn(`Failed to ${what}`)(e),
    nodes,
    onWaiting: (req, reason) => log.info(reason ? 'Step Pod is waiting' : 'Step Pod stopped waiting', { dag: req.identity.dagName, dagRunId: req.identity.dagRunId, step: req.identity.node, ...(reason ? { reason } : {}) }),
  });
  const agent = fsFiles ? new AgentLauncher(kc, pods, { settings, files: fsFiles, owner, createLimit, agentDir: (req) => fsFiles.agentDir(req) }) : undefined;
  const elector = new LeaderElector(kc, { namespace, name: 'svc-operator', identity, leaseSeconds: oc.leaseSeconds, renewMs: Math.max(1000, Math.floor(oc.leaseSeconds * 1000 / 5)), retryMs: 1000, onError: warn('Lease request failed') });
  const events = new WatchedRunEvents();
  const clock = { now: () => Date.now() };
  const engine: EngineDeps = {
    store, logs, launchers: { ...runStepLaunchers(shell), shell, hitl: hitlLauncher, container: containerSteps(shell, agent) }, events, ownership: new LeaderOwnership(elector, identity), controls: new KubeRunControls(kc, namespace),
    secrets: new SecretEnvProvider(new BuiltinSecretProvider(), new Secrets(kc, namespace), oc.secretEnvFrom),
    dags: dagSource(dags), clock, ids: timeIds(clock.now), log, notifier: new SmtpNotifier(), tracer: new OtlpRunTracer(),
    // The operator's own environment is not the steps': their images bring theirs.
    systemEnv: {}, cwd: '/', defaultShell: ['/bin/sh'], implicitDotenv: false, maxCallDepth: config.maxCallDepth,
    // Scheduled starts check singleton and maxActiveRuns against the API replicas' admissions too.
    admission: new KubeAdmissionLock(kc, store, { namespace, identity, onError: warn('Could not free the run admission Lease') }),
  };
  const runs = new RunService(engine);
  const launcher = new LaunchService(engine, runs, { drives: true, maxDriving: oc.maxActiveRuns });
  const queues = new QueueProcessor(engine, launcher, config.queues);
  const scheduler = new Scheduler({
    catalog: new StoreDagCatalog(dags), launcher, runs, store, clock, log, state: schedulerState(config.dataDir), ...(config.tz ? { tz: config.tz } : {}),
  });
  let unsubscribe = (): void => undefined;
  let closed = false;

  const requests = new RunRequests({
    dags: engine.dags, launcher, log,
    answer: (r, a) => store.answerRequest(r, a, new Date(clock.now())),
  });

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

  const leading = (async () => {
    log.info('Waiting to lead', { namespace, identity });
    await elector.lead(() => {
      log.error('Lost the operator Lease: stopping', { identity });
      onLost();
    });
    if (closed) return;
    log.info('Leading', { namespace, identity });
    await pods.start();
    nodes.start();
    await store.whenSynced();
    unsubscribe = store.subscribe(onChange);
    const n = await launcher.takeOver();
    if (n > 0) log.info('Took over dag-runs', { runs: n });
    if (config.queuesEnabled) await queues.start(() => launcher.takeOver());
    await scheduler.start();
  })();
  leading.catch(warn('Failed to start leading'));

  return {
    namespace, identity, leading,
    stats: { isLeader: () => elector.isLeader && !closed, driving: () => launcher.driving, waiting: () => launcher.waitingToDrive, stepPods: () => pods.size() },
    async close() {
      closed = true;
      scheduler.stop();
      queues.stop();
      unsubscribe();
      await launcher.close(SHUTDOWN_GRACE_MS);
      nodes.stop();
      await elector.resign();
      await Promise.allSettled([pods.close(), store.close(), dags.close(), s3?.close()]);
    },
  };
}
