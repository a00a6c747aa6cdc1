/** Shared helpers of the run API tests: the real server (TestServer) and run-state pollers. */
import { TestServer, eventually } from '../../helpers/server.js';

export { eventually, TestServer };

export function runsServer(env: Record<string, string> = {}): TestServer {
  return new TestServer(env);
}

/** Polls a run until its statusLabel is one of `labels`; returns the detail. */
export async function waitRun(srv: TestServer, name: string, id: string, ...labels: string[]): Promise<any> {
  return eventually(async () => {
    const r = await srv.get(`/dag-runs/${name}/${id}`);
    return r.status === 200 && labels.includes(r.body.dagRun.statusLabel) ? r.body.dagRun : undefined;
  }, `${name}/${id} to be ${labels.join(' or ')}`);
}

export const nodeOf = (detail: any, step: string) => detail.nodes.find((n: any) => n.step.name === step);

export { err } from '../../helpers/server.js';
