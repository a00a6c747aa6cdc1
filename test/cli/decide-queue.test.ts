/**
 * The CLI's approval and queue commands and its follow modes, as a user runs them from two terminals:
 * `svc start --follow` in one, `svc approve|reject` in another; `svc enqueue|dequeue`; `svc logs --follow`.
 */
import { collect, eventually, Sandbox } from '../helpers/cli.js';

const DAG = `
steps:
  - name: fan
    call: child
    parallel:
      items: [a, b]
    params: "WHO=\${ITEM}"
  - name: noisy
    command: echo "out line"; echo "err line" >&2
  - name: gate
    type: hitl
    config: { prompt: ok?, input: [WHO], required: [WHO] }
  - name: after
    command: echo "approved by $WHO"
---
name: child
params: [WHO=x]
steps:
  - name: say
    command: echo "child $WHO"
`;

describe('svc approve, reject, enqueue, dequeue, --follow', () => {
  const sb = new Sandbox();
  const gateWaiting = (runId: string) => eventually(async () => {
    const r = await sb.run(['status', 'gated', '--run-id', runId, '--json']);
    return r.code === 0 && (JSON.parse(r.stdout).dagRun.nodes as { step: { name: string }; statusLabel: string }[]).find((n) => n.step.name === "gate")?.statusLabel === 'waiting';
  }, 'the gate to wait');

  test('approve: wrong inputs are refused with the reason; the foreground run goes on; --follow shows each step\'s output and each item', async () => {
    const f = sb.dag('gated', DAG);
    const start = collect(sb.spawn(['start', f, '--follow', '--run-id', 'r1']));
    await gateWaiting('r1');
    const missing = await sb.run(['approve', 'gated', '--step', 'gate']);
    expect(missing).toMatchObject({ code: 1, stderr: 'error (bad_request): missing required input WHO\n' });
    const unknown = await sb.run(['approve', 'gated', '--step', 'gate', '--input', 'WHO=ada', '--input', 'X=1']);
    expect(unknown.stderr).toContain('unknown input X: this step accepts WHO');
    expect((await sb.run(['approve', 'gated', '--step', 'noisy', '--input', 'WHO=ada'])).stderr).toContain('not an approval step');
    const ok = await sb.run(['approve', 'gated', '--step', 'gate', '--input', 'WHO=ada']);
    expect(ok).toMatchObject({ code: 0, stdout: 'step gate approved: succeeded\n' });
    const r = await start;
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('running    fan [a]\n');
    expect(r.stdout).toContain('succeeded  fan [b]\n');
    expect(r.stdout).toContain('noisy | out line\n');
    expect(r.stderr).toContain('noisy | err line\n');
    expect(r.stdout).toContain('after | approved by ada\n');
    expect(r.stdout).toMatch(/dag-run r1 succeeded\n$/);
  });

  test('reject ends the run rejected; logs --follow prints a step\'s log until the step is done, the run log until the run ends', async () => {
    const f = sb.dag('gated', DAG);
    const start = collect(sb.spawn(['start', f, '--run-id', 'r2']));
    await gateWaiting('r2');
    const follow = collect(sb.spawn(['logs', 'gated', '--run-id', 'r2', '--follow']));
    const stepLog = await sb.run(['logs', 'gated', '--run-id', 'r2', '--step', 'noisy', '--stderr', '--follow']);
    expect(stepLog).toMatchObject({ code: 0, stdout: 'err line\n' });
    expect(await sb.run(['reject', 'gated', '--step', 'gate', '--run-id', 'r2', '--reason', 'not today'])).toMatchObject({ code: 0, stdout: 'step gate rejected: rejected\n' });
    expect((await start).code).toBe(1);
    const runLog = await follow;
    expect(runLog.code).toBe(0);
    expect(runLog.stdout).toMatch(/gate/);
  });

  test('approve with no live driver says how to continue', async () => {
    const f = sb.dag('gated', DAG);
    const child = sb.spawn(['start', f, '--run-id', 'r3']);
    const done = collect(child);
    await gateWaiting('r3');
    child.kill('SIGKILL');
    await done;
    const r = await sb.run(['approve', 'gated', '--step', 'gate', '--run-id', 'r3', '--input', 'WHO=bo']);
    expect(r.stdout).toBe('step gate approved; no process is driving dag-run r3: continue it with svc resume gated --run-id r3\n');
    const resumed = await sb.run(['resume', 'gated', '--run-id', 'r3']);
    expect(resumed.stdout).toContain('dag-run r3 succeeded');
    expect((await sb.run(['logs', 'gated', '--run-id', 'r3', '--step', 'after'])).stdout).toBe('approved by bo\n');
  });

  test('enqueue puts a run in its queue; dequeue takes it out once', async () => {
    const f = sb.dag('queued', 'steps:\n  - name: s\n    command: echo hi\n');
    expect(await sb.run(['enqueue', f, '--run-id', 'q1', '--params', 'A=1'])).toMatchObject({ code: 0, stdout: 'dag-run q1 of queued queued; a running svc server starts it when its queue has room\n' });
    const queued = await sb.json(['status', 'queued', '--run-id', 'q1', '--json']);
    expect(queued.dagRun).toMatchObject({ statusLabel: 'queued', params: 'A=1' });
    expect(await sb.run(['dequeue', 'queued', '--run-id', 'q1'])).toMatchObject({ code: 0, stdout: 'dag-run q1 of queued dequeued\n' });
    expect((await sb.json(['status', 'queued', '--run-id', 'q1', '--json'])).dagRun.statusLabel).toBe('aborted');
    expect(await sb.run(['dequeue', 'queued', '--run-id', 'q1'])).toMatchObject({ code: 1, stderr: 'error (not_found): dag-run q1 of DAG queued is not in the queue\n' });
    expect((await sb.run(['dequeue', 'queued'])).code).toBe(2);
  });
});
