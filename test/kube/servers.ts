/**
 * A TestServer on the kubernetes backend (what the api-kube project sets for every server), with its
 * operator unless `SVC_TEST_OPERATOR: 'off'`; and what the operator's tests do with it.
 */
import { eventually, TestServer } from '../helpers/server.js';
import { kubectl } from '../testbed/helpers.js';

export function kubeServer(env: Record<string, string> = {}): TestServer {
  const before = process.env.SVC_TEST_BACKEND;
  process.env.SVC_TEST_BACKEND = 'kubernetes';
  try {
    return new TestServer(env);
  } finally {
    if (before === undefined) delete process.env.SVC_TEST_BACKEND;
    else process.env.SVC_TEST_BACKEND = before;
  }
}

/** The run once it has ended (failed, aborted, succeeded, partially succeeded). */
export async function finished(srv: TestServer, dag: string, id: string, timeoutMs = 60_000): Promise<any> {
  return eventually(async () => {
    const r = (await srv.get(`/dag-runs/${dag}/${id}`)).body.dagRun;
    return r && [2, 3, 4, 6].includes(r.status) ? r : undefined;
  }, `${dag}/${id} to finish`, timeoutMs);
}

/** Starts a run of the DAG over REST; its run id. */
export async function start(srv: TestServer, dag: string, body: object = {}): Promise<string> {
  const r = await srv.post(`/dags/${dag}/start`, body);
  expect(r.status).toBe(200);
  return r.body.dagRunId as string;
}

export interface PodJson { metadata: { name: string; labels: Record<string, string>; deletionTimestamp?: string; ownerReferences?: object[] }; spec: any; status?: any }

/** The namespace's Pods matching a label selector (default: step Pods). */
export async function podsOf(ns: string, selector = 'svc.io/component=step'): Promise<PodJson[]> {
  const r = await kubectl(['get', 'pods', '-n', ns, '-l', selector, '-o', 'json']);
  return JSON.parse(r.stdout).items;
}
