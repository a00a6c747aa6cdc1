/**
 * Helpers for tests that run against the cluster prepared by global-setup.js: the test bed of this run, or
 * the cluster named by SVC_TEST_KUBECONFIG. Operator tests (test/operator) can use them too.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, Kube } from './agent/kube.js';
import type { TestbedState } from './lib/testbed.js';

export { ApiError, Kube };

export interface Cluster {
  kubeconfig: string;
  /** Present when the cluster is a test bed (agents can be started and stopped). */
  state?: TestbedState;
  kube: Kube;
  kubectlPath: string;
}

/** Why cluster tests cannot run here, or undefined. */
export function skipReason(): string | undefined {
  if (process.env.SVC_TESTBED_SKIP) return process.env.SVC_TESTBED_SKIP;
  if (!process.env.SVC_TEST_KUBECONFIG) return 'no cluster: global-setup.js (test/testbed) did not run and SVC_TEST_KUBECONFIG is not set';
  return undefined;
}

let cached: Cluster | undefined;
export function cluster(): Cluster {
  if (cached) return cached;
  const kubeconfig = process.env.SVC_TEST_KUBECONFIG;
  if (!kubeconfig) throw new Error(skipReason());
  const statePath = process.env.SVC_TESTBED_STATE;
  const state = statePath && fs.existsSync(statePath) ? (JSON.parse(fs.readFileSync(statePath, 'utf8')) as TestbedState) : undefined;
  const kubectlPath = state ? path.join(state.bin, 'kubectl') : 'kubectl';
  cached = { kubeconfig, kube: new Kube(kubeconfig), kubectlPath, ...(state ? { state } : {}) };
  return cached;
}

/**
 * describe() for tests that need a cluster. Without one: under CI=true the suite fails; elsewhere it is
 * skipped with a loud reason. With `testbedOnly`, it also needs the test bed itself (agents, Leases).
 */
export function describeCluster(name: string, fn: () => void, opts: { testbedOnly?: boolean } = {}): void {
  let reason = skipReason();
  if (!reason && opts.testbedOnly && !process.env.SVC_TESTBED_STATE) reason = 'needs the svc test bed itself (node agents), not another cluster';
  if (!reason) return describe(name, fn);
  if (process.env.CI === 'true' && !opts.testbedOnly) {
    return describe(name, () => {
      test('cluster available', () => {
        throw new Error(`CI: ${reason}`);
      });
    });
  }
  process.stderr.write(`\n!!! SKIPPING "${name}": ${reason}\n`);
  describe.skip(name, fn);
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
/** Runs kubectl against the cluster. */
export function kubectl(args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<Run> {
  const c = cluster();
  return new Promise((resolve, reject) => {
    const p = spawn(c.kubectlPath, ['--kubeconfig', c.kubeconfig, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const t = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 60000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    // kubectl may exit before reading its input (a command that takes none): its exit code says how it went.
    p.stdin.on('error', () => undefined);
    p.stdin.end(opts.input ?? '');
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a value other than undefined/false. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    await sleep(200);
  }
  throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** A fresh namespace whose default ServiceAccount exists (so Pods pass the ServiceAccount admission). */
export async function createNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${crypto.randomBytes(3).toString('hex')}`;
  const { kube } = cluster();
  await kube.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await eventually(`ServiceAccount ${name}/default`, () => kube.get(`/api/v1/namespaces/${name}/serviceaccounts/default`).then(() => true));
  return name;
}

export async function deleteNamespace(name: string): Promise<void> {
  await cluster()
    .kube.delete(`/api/v1/namespaces/${name}`)
    .catch(() => {});
}

export interface PodLike {
  metadata: { name: string; uid?: string; namespace?: string };
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses?: { name: string; restartCount: number; state: Record<string, { exitCode?: number; reason?: string; startedAt?: string; finishedAt?: string } | undefined> }[];
    initContainerStatuses?: { name: string; state: Record<string, { exitCode?: number; startedAt?: string; finishedAt?: string } | undefined> }[];
    reason?: string;
  };
}

export function getPod(ns: string, name: string): Promise<PodLike> {
  return cluster().kube.get<PodLike>(`/api/v1/namespaces/${ns}/pods/${name}`);
}

export function createPod(ns: string, pod: object): Promise<PodLike> {
  return cluster().kube.post<PodLike>(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', ...pod });
}

export function waitPhase(ns: string, name: string, phases: string[], timeoutMs = 30000): Promise<PodLike> {
  return eventually(`pod ${ns}/${name} in ${phases.join('|')}`, async () => {
    const p = await getPod(ns, name);
    return phases.includes(p.status?.phase ?? '') ? p : undefined;
  }, timeoutMs);
}

/** A container spec running `script` with sh (the image is recorded, never pulled). */
export function sh(name: string, script: string, extra: object = {}): object {
  return { name, image: 'busybox:1.36', command: ['sh', '-c', script], ...extra };
}
