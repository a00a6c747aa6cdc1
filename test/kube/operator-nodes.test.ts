/**
 * A Node that dies under a running step (its agent stopped: no kubelet reports the Pod any more): once
 * its Lease is stale the step fails, saying why, and its retryPolicy runs it again on a live Node.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/server.js';
import { cluster } from '../testbed/helpers.js';
import { startAgent, stopAgent, type AgentInfo } from '../testbed/lib/testbed.js';
import { describeCluster } from './env.js';
import { kubeServer } from './servers.js';

describeCluster('a Node that stops heartbeating under a running step', () => {
  const srv = kubeServer();
  const agents: AgentInfo[] = [];
  const group = { 'svc.testbed/group': 'g' };
  beforeAll(() => srv.start());
  afterAll(async () => {
    const state = cluster().state!;
    for (const a of agents) await stopAgent(state, a).catch(() => undefined);
    await srv.stop();
    for (const n of ['node-c', 'node-d']) await cluster().kube.delete(`/api/v1/nodes/${n}`).catch(() => undefined);
  });

  test('the step fails after the heartbeat timeout and is retried on another node', async () => {
    const state = cluster().state;
    if (!state) throw new Error('no test bed state');
    agents.push(await startAgent(state, [{ name: 'node-c', labels: group }], { leaseDurationSeconds: 4, renewIntervalSeconds: 1 }));
    const dir = mkdtempSync(join(tmpdir(), 'svc-nodes-'));
    srv.dag('placed', [
      'steps:',
      '  - name: work',
      `    command: sh -c 'echo "$SVC_TESTBED_NODE" >> ${dir}/ran; echo started; [ $(wc -l < ${dir}/ran) -ge 2 ] || sleep 120'`,
      '    workerSelector: { svc.testbed/group: g }',
      '    retryPolicy: { limit: 1, intervalSec: 1 }',
    ].join('\n'));
    const id = (await srv.post('/dags/placed/start', {})).body.dagRunId as string;
    await eventually(async () => ((await srv.get(`/dag-runs/placed/${id}/steps/work/log?stream=stdout`)).body.content as string | undefined)?.includes('started') || undefined, 'the step to start on node-c', 30_000);
    await stopAgent(state, agents.shift()!);
    agents.push(await startAgent(state, [{ name: 'node-d', labels: group }], { leaseDurationSeconds: 4, renewIntervalSeconds: 1 }));
    const failed = await eventually(async () => {
      const n = (await srv.get(`/dag-runs/placed/${id}`)).body.dagRun.nodes[0];
      return (n.error as string).includes('stopped heartbeating') ? n : undefined;
    }, 'the step to fail with the node', 60_000);
    expect(failed.error).toMatch(/^node node-c stopped heartbeating/);
    const run = await eventually(async () => {
      const r = (await srv.get(`/dag-runs/placed/${id}`)).body.dagRun;
      return [2, 3, 4].includes(r.status) ? r : undefined;
    }, 'the run to finish', 60_000);
    expect(run.statusLabel).toBe('succeeded');
    expect(run.nodes[0].retryCount).toBe(1);
    expect(readFileSync(join(dir, 'ran'), 'utf8')).toBe('node-c\nnode-d\n');
  }, 180_000);
}, { testbedOnly: true });
