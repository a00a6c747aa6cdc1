/** Human approval (SPEC 2.6, 3.3; endpoints of docs/api.md) end to end over real HTTP. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { err, eventually, nodeOf, runsServer, waitRun } from './helpers.js';

const srv = runsServer();
beforeAll(async () => {
  srv.dag('gate', [
    // Named: on the kubernetes backend a Dag has no directory of its own to default to.
    `workingDir: ${srv.dagsDir}`,
    'handlerOn:',
    '  wait:',
    '    command: echo "waiting=$DAG_WAITING_STEPS" > wait-handler.txt',
    'steps:',
    '  - name: build',
    '    command: echo built',
    '  - name: approve-deploy',
    '    type: hitl',
    '    config:',
    '      prompt: Deploy?',
    '      input: [REASON, TICKET]',
    '      required: [REASON]',
    '  - name: deploy',
    '    command: echo "deploying because $REASON ($TICKET)"',
    '    output: DEPLOYED',
  ].join('\n'));
  await srv.start();
});
afterAll(() => srv.stop());

async function waiting(id: string) {
  const r = await srv.post('/dags/gate/start-sync', { timeout: 30, dagRunId: id });
  expect(r.status).toBe(200);
  return r.body.dagRun;
}

describe('hitl approval', () => {
  test('start-sync returns at once with the run waiting (7); the wait handler got DAG_WAITING_STEPS', async () => {
    const run = await waiting('w1');
    expect(run).toMatchObject({ status: 7, statusLabel: 'waiting' });
    expect(nodeOf(run, 'build').statusLabel).toBe('succeeded');
    expect(nodeOf(run, 'approve-deploy')).toMatchObject({ status: 7, statusLabel: 'waiting' });
    expect(nodeOf(run, 'deploy').statusLabel).toBe('not_started');
    // The wait handler runs while the run is waiting: wait for it to finish, not just for the status.
    const done = await eventually(async () => {
      const r = await srv.get('/dag-runs/gate/w1');
      return r.body.dagRun?.onWait?.statusLabel === 'succeeded' ? r.body.dagRun : undefined;
    }, 'the wait handler to succeed');
    expect(done.statusLabel).toBe('waiting');
    expect(readFileSync(join(srv.dagsDir, 'wait-handler.txt'), 'utf8').trim()).toBe('waiting=approve-deploy');
    expect((await srv.get('/dag-runs?status=7')).body.dagRuns.map((r: any) => r.dagRunId)).toContain('w1');
  });

  test('approve with inputs: the step succeeds, later steps see the inputs as environment variables', async () => {
    const r = await srv.post('/dag-runs/gate/w1/steps/approve-deploy/approve', { inputs: { REASON: 'tested', TICKET: 'T-1' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ dagRunId: 'w1', stepName: 'approve-deploy', status: 4, statusLabel: 'succeeded' });
    const run = await waitRun(srv, 'gate', 'w1', 'succeeded');
    expect(nodeOf(run, 'deploy').output).toBe('deploying because tested (T-1)');
    const again = await srv.post('/dag-runs/gate/w1/steps/approve-deploy/approve', { inputs: { REASON: 'x' } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject(err('bad_request'));
  });

  test('reject: the step is rejected (8), the run rejected (8), dependants aborted', async () => {
    await waiting('w2');
    const r = await srv.post('/dag-runs/gate/w2/steps/approve-deploy/reject', { reason: 'not today' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 8, statusLabel: 'rejected' });
    const run = await waitRun(srv, 'gate', 'w2', 'rejected');
    expect(run.status).toBe(8);
    expect(nodeOf(run, 'approve-deploy')).toMatchObject({ status: 8, error: expect.stringContaining('not today') });
    expect(nodeOf(run, 'deploy').statusLabel).toBe('aborted');
  });

  test('input rules: required enforced, unknown names and wrong types refused, nothing applied', async () => {
    await waiting('w3');
    const cases: Array<[unknown, RegExp]> = [
      [{}, /REASON/],
      [{ inputs: { TICKET: 'x' } }, /required.*REASON/],
      [{ inputs: { REASON: '   ' } }, /REASON/],
      [{ inputs: { REASON: 'ok', OTHER: 'x' } }, /unknown input OTHER/],
      [{ inputs: { REASON: 5 } }, /string/],
      [{ inputs: ['REASON'] }, /object/],
      [{ inputs: { REASON: 'x'.repeat(65_537) } }, /longer/],
      [{ inputs: { 'BAD NAME': 'x' } }, /invalid input name/],
    ];
    for (const [b, message] of cases) {
      const r = await srv.post('/dag-runs/gate/w3/steps/approve-deploy/approve', b);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'bad_request', message: expect.stringMatching(message) });
    }
    expect((await srv.get('/dag-runs/gate/w3')).body.dagRun.statusLabel).toBe('waiting');
    expect((await srv.post('/dag-runs/gate/w3/steps/approve-deploy/reject', { reason: 7 })).status).toBe(400);
    expect((await srv.post('/dag-runs/gate/w3/steps/approve-deploy/reject', { reason: 'r'.repeat(4097) })).status).toBe(400);
    await srv.post('/dag-runs/gate/w3/steps/approve-deploy/reject', {});
    await waitRun(srv, 'gate', 'w3', 'rejected');
  });

  test.each([
    ['unknown run', '/dag-runs/gate/nope/steps/approve-deploy/approve', 404, 'not_found'],
    ['unknown step', '/dag-runs/gate/w1/steps/nope/approve', 404, 'not_found'],
    ['not an approval step', '/dag-runs/gate/w1/steps/build/approve', 400, 'bad_request'],
    ['step name traversal', '/dag-runs/gate/w1/steps/..%2F..%2Fx/approve', 400, 'bad_request'],
    ['run id traversal', '/dag-runs/gate/..%2Fx/steps/a/reject', 400, 'bad_request'],
    ['name traversal', '/dag-runs/..%2Fgate/w1/steps/a/reject', 400, 'bad_request'],
  ])('%s', async (_name, path, status, code) => {
    const r = await srv.post(path, { inputs: { REASON: 'x' } });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject(err(code));
  });

  test('a waiting run can be stopped (aborted)', async () => {
    await waiting('w4');
    expect((await srv.post('/dag-runs/gate/w4/stop')).status).toBe(200);
    const run = await waitRun(srv, 'gate', 'w4', 'aborted');
    expect(nodeOf(run, 'approve-deploy').statusLabel).toBe('aborted');
  });
});
