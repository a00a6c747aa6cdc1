/**
 * When a run owes a notification mail (SPEC 2.2 mailOn, errorMail/infoMail/waitMail; step mailOnError)
 * and what it says. Pure: the moments are read off two successive states, so a driver that observes each
 * change once sends each mail once, and a driver that resumes a run does not repeat what its predecessor
 * observed. As the reference: the end of a run mails `failure` for a failed run and `success` for a
 * succeeded or partially succeeded one (aborted and rejected runs mail nothing); a step with mailOnError
 * mails the errorMail recipients when it fails (even when continueOn lets the run go on, whatever
 * mailOn says). The run entering waiting (an approval step waits) mails `wait`.
 */
import type { NotificationEvent } from '../../core/ports/notifier.js';
import type { DagRunResource } from '../../core/resources.js';
import { findNode, stepOf, type NodeState, type RunState } from '../../core/run/state.js';
import { isRunSuccess, isRunTerminal, nodeStatusLabel, NodeStatus, RunStatus, runStatusLabel } from '../../core/run/status.js';
import type { DagDefinition, MailConfig } from '../../core/spec/types.js';

export interface NoticeDue {
  event: NotificationEvent;
  mail: MailConfig;
  /** The failed step of a `stepError`. */
  step?: string;
}

export function noticesDue(def: DagDefinition, prev: RunState, next: RunState): NoticeDue[] {
  const out: NoticeDue[] = [];
  if (def.errorMail) {
    for (const node of [...next.nodes, ...next.handlers]) {
      if (node.status !== NodeStatus.Failed || !stepOf(def, node)?.mailOnError) continue;
      if (findNode(def, prev, node.name)?.status === NodeStatus.Failed) continue;
      out.push({ event: 'stepError', mail: def.errorMail, step: node.name });
    }
  }
  const { mailOn } = def;
  if (!isRunTerminal(prev.status) && isRunTerminal(next.status)) {
    if (next.status === RunStatus.Failed && mailOn.failure && def.errorMail) out.push({ event: 'failure', mail: def.errorMail });
    if (isRunSuccess(next.status) && mailOn.success && def.infoMail) out.push({ event: 'success', mail: def.infoMail });
  }
  if (prev.status !== RunStatus.Waiting && next.status === RunStatus.Waiting && mailOn.wait && def.waitMail) {
    out.push({ event: 'wait', mail: def.waitMail });
  }
  return out;
}

/** `<prefix> <DAG name> (<what>)`, the reference's form: `(failed)`, `(waiting)`, `(step build failed)`. */
export function noticeSubject(due: NoticeDue, run: DagRunResource, prefix: string): string {
  const what = due.event === 'stepError' ? `step ${due.step} failed` : runStatusLabel(run.status.run.status);
  return `${[prefix.trim(), run.spec.dagName].filter((s) => s !== '').join(' ')} (${what})`;
}

/** The text of a notification: what happened, the run, then every step with its status and error. */
export function noticeText(due: NoticeDue, run: DagRunResource, expand: (s: string) => string): string {
  const s = run.status.run;
  const lines = [headline(due, run, expand), ''];
  const fields: [string, string][] = [
    ['DAG', run.spec.dagName], ['Run ID', run.spec.dagRunId], ['Status', runStatusLabel(s.status)],
    ['Started', s.startedAt || '-'], ['Finished', s.finishedAt || '-'],
    ...(run.spec.params ? [['Params', run.spec.params] as [string, string]] : []),
    ...(s.error ? [['Error', s.error] as [string, string]] : []),
  ];
  for (const [k, v] of fields) lines.push(`${`${k}:`.padEnd(10)}${v}`);
  lines.push('', 'Steps:', ...table(s.nodes));
  const handlers = s.handlers.filter((h) => h.status !== NodeStatus.NotStarted);
  if (handlers.length > 0) lines.push('', 'Handlers:', ...table(handlers));
  return `${lines.join('\n')}\n`;
}

function headline(due: NoticeDue, run: DagRunResource, expand: (s: string) => string): string {
  const s = run.status.run;
  switch (due.event) {
    case 'stepError': {
      const node = findNode(run.spec.definition, s, due.step ?? '');
      return `Step ${due.step} of ${run.spec.dagName} failed${node?.error ? `: ${node.error}` : '.'}`;
    }
    case 'wait': {
      const waiting = s.nodes.filter((n) => n.status === NodeStatus.Waiting);
      const prompts = waiting.map((n) => {
        const prompt = stepOf(run.spec.definition, n)?.config?.prompt;
        return `  ${n.name}${typeof prompt === 'string' && prompt !== '' ? `: ${expand(prompt)}` : ''}`;
      });
      return [`${run.spec.dagName} is waiting for approval of:`, ...prompts].join('\n');
    }
    default:
      return `${run.spec.dagName} ${runStatusLabel(s.status).replace('_', ' ')}${s.error ? `: ${s.error}` : '.'}`;
  }
}

/** Columns padded to their widest cell, so the table reads in a fixed-width font. */
function table(nodes: NodeState[]): string[] {
  const rows = [['Step', 'Status', 'Started', 'Finished', 'Error'], ...nodes.map((n) => [
    n.name, nodeStatusLabel(n.status), n.startedAt || '-', n.finishedAt || '-', n.error.replace(/\s+/g, ' '),
  ])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}`.trimEnd());
}
