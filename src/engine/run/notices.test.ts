import type { DagRunResource } from '../../core/resources.js';
import { newRunState, type NodeState, type RunState } from '../../core/run/state.js';
import { NodeStatus, RunStatus } from '../../core/run/status.js';
import { mkDag, mkStep } from '../../core/run/testkit.js';
import type { DagDefinition, MailConfig } from '../../core/spec/types.js';
import { noticesDue, noticeSubject, noticeText } from './notices.js';

const mail = (to: string): MailConfig => ({ to: [to], attachLogs: false });
const all = { success: true, failure: true, wait: true };

function dag(over: Partial<DagDefinition> = {}): DagDefinition {
  return mkDag([mkStep('a'), mkStep('b', { mailOnError: true })], {
    mailOn: all, errorMail: mail('err@x'), infoMail: mail('info@x'), waitMail: mail('wait@x'), ...over,
  });
}

function state(def: DagDefinition, status: RunStatus, nodes: Partial<Record<string, Partial<NodeState>>> = {}): RunState {
  const s = newRunState(def);
  return { ...s, status, nodes: s.nodes.map((n) => ({ ...n, ...nodes[n.name] })) };
}

const events = (def: DagDefinition, prev: RunState, next: RunState): string[] =>
  noticesDue(def, prev, next).map((d) => `${d.event}${d.step ? `:${d.step}` : ''}->${d.mail.to.join(',')}`);

describe('noticesDue', () => {
  const def = dag();
  const running = state(def, RunStatus.Running);

  test.each([
    ['succeeded', RunStatus.Succeeded, ['success->info@x']],
    ['partially_succeeded', RunStatus.PartiallySucceeded, ['success->info@x']],
    ['failed', RunStatus.Failed, ['failure->err@x']],
    ['aborted', RunStatus.Aborted, []],
    ['rejected', RunStatus.Rejected, []],
  ])('the end of a run (%s) mails as the reference does', (_label, status, expected) => {
    expect(events(def, running, state(def, status))).toEqual(expected);
  });

  test('only the change mails: a run already ended, or already waiting, mails nothing more', () => {
    expect(events(def, state(def, RunStatus.Failed), state(def, RunStatus.Failed))).toEqual([]);
    expect(events(def, running, state(def, RunStatus.Waiting))).toEqual(['wait->wait@x']);
    expect(events(def, state(def, RunStatus.Waiting), state(def, RunStatus.Waiting))).toEqual([]);
  });

  test('mailOn off, or no mail block, mails nothing', () => {
    const off = dag({ mailOn: { success: false, failure: false, wait: false } });
    expect(events(off, running, state(off, RunStatus.Failed))).toEqual([]);
    const blockless = dag({ infoMail: undefined });
    expect(events(blockless, running, state(blockless, RunStatus.Succeeded))).toEqual([]);
  });

  test('a mailOnError step mails errorMail once, when it turns failed, whatever mailOn says', () => {
    const quiet = dag({ mailOn: { success: false, failure: false, wait: false } });
    const failedB = state(quiet, RunStatus.Running, { a: { status: NodeStatus.Failed }, b: { status: NodeStatus.Failed } });
    expect(events(quiet, running, failedB)).toEqual(['stepError:b->err@x']);
    expect(events(quiet, failedB, failedB)).toEqual([]);
    expect(events(dag({ errorMail: undefined }), running, failedB)).toEqual([]);
  });

  test('step errors come before the end of the run they end', () => {
    const failed = state(def, RunStatus.Failed, { b: { status: NodeStatus.Failed } });
    expect(events(def, running, failed)).toEqual(['stepError:b->err@x', 'failure->err@x']);
  });
});

describe('the text of a notification', () => {
  const def = dag();
  const run = (s: RunState): DagRunResource => ({
    spec: { dagName: 'nightly', dagRunId: 'r1', definition: def, params: 'X=1' }, status: { attemptId: 'a1', run: s },
  }) as unknown as DagRunResource;
  const failed = run({
    ...state(def, RunStatus.Failed, {
      a: { status: NodeStatus.Succeeded, startedAt: 't0', finishedAt: 't1' },
      b: { status: NodeStatus.Failed, startedAt: 't1', finishedAt: 't2', error: 'exit status\n3' },
    }),
    startedAt: 't0', finishedAt: 't2',
  });

  test('subject: the prefix, the DAG, what happened', () => {
    expect(noticeSubject({ event: 'failure', mail: mail('x') }, failed, '[svc] ')).toBe('[svc] nightly (failed)');
    expect(noticeSubject({ event: 'stepError', mail: mail('x'), step: 'b' }, failed, '')).toBe('nightly (step b failed)');
  });

  test('text: a headline, the run, each step with status, times and error in aligned columns', () => {
    expect(noticeText({ event: 'stepError', mail: mail('x'), step: 'b' }, failed, (s) => s)).toBe([
      'Step b of nightly failed: exit status',
      '3',
      '',
      'DAG:      nightly',
      'Run ID:   r1',
      'Status:   failed',
      'Started:  t0',
      'Finished: t2',
      'Params:   X=1',
      '',
      'Steps:',
      '  Step  Status     Started  Finished  Error',
      '  a     succeeded  t0       t1',
      '  b     failed     t1       t2        exit status 3',
      '',
    ].join('\n'));
  });
});
