/**
 * Sends the notification mails a run owes (notices.ts) through `deps.notifier`, on the side: the driver
 * hands over each change of state and goes on; a delivery that fails is a warning in the engine's log,
 * one that takes longer than `notifyTimeoutMs` is given up (and aborted), and the run's outcome never
 * depends on either. The driver waits for the deliveries still under way before it lets go of the run.
 * The mail block, prefix and smtp block are expanded like a step's fields; secrets are masked in what
 * the engine writes (the subject, the text); attached logs come from the LogStore, already masked.
 */
import type { Notification, NotificationAttachment } from '../../core/ports/notifier.js';
import type { DagRunResource } from '../../core/resources.js';
import type { ExecRef, NodeState } from '../../core/run/state.js';
import { findNode, stepOf } from '../../core/run/state.js';
import { NodeStatus } from '../../core/run/status.js';
import type { SmtpConfig, StepDefinition } from '../../core/spec/types.js';
import { mapStrings } from '../../core/spec/step-config.js';
import { buildExpansionLookup, filterSystemEnv } from '../../core/vars/env.js';
import { expandVars, type Lookup } from '../../core/vars/expand.js';
import { maskSecrets } from '../../core/vars/mask.js';
import type { EngineDeps } from '../deps.js';
import { execLogOf, isMerged } from './exec-request.js';
import { noticesDue, noticeSubject, noticeText, type NoticeDue } from './notices.js';
import type { RunContext } from './run-context.js';

/** Default bound of one notification (the reference's mail timeout). */
export const NOTIFY_TIMEOUT_MS = 30_000;
/** Each attached log is cut here: a mail is no way to ship a huge log. */
const MAX_LOG_BYTES = 1 << 20;

export class RunNotices {
  private readonly pending = new Set<Promise<void>>();

  /** `ctx`: the run's context; undefined for a run that failed before it had one (system env only). */
  constructor(private readonly deps: EngineDeps, private readonly ctx: RunContext | undefined) {}

  /** Starts the deliveries the step from `prev` to `next` calls for. */
  observe(prev: DagRunResource, next: DagRunResource): void {
    if (!this.deps.notifier) return;
    for (const due of noticesDue(next.spec.definition, prev.status.run, next.status.run)) {
      const p: Promise<void> = this.deliver(due, next).finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  /** Resolves once every delivery started so far has ended (each is bounded): never rejects. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  private async deliver(due: NoticeDue, run: DagRunResource): Promise<void> {
    const fields = { dag: run.spec.dagName, dagRunId: run.spec.dagRunId, event: due.event, ...(due.step ? { step: due.step } : {}) };
    const ms = this.deps.notifyTimeoutMs ?? NOTIFY_TIMEOUT_MS;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = new Error(`no answer within ${ms} ms`);
        abort.abort(e);
        reject(e);
      }, ms);
    });
    try {
      const n = await Promise.race([this.compose(due, run), expired]);
      await Promise.race([this.deps.notifier!.notify(n, abort.signal), expired]);
      this.deps.log.info('Sent a notification mail', { ...fields, to: n.to });
    } catch (e) {
      const error = maskSecrets(e instanceof Error ? e.message : String(e), this.ctx?.secretValues ?? []);
      this.deps.log.warn('Failed to send a notification mail', { ...fields, error });
    } finally {
      clearTimeout(timer);
    }
  }

  private async compose(due: NoticeDue, run: DagRunResource): Promise<Notification> {
    const lookup = await this.lookup(run);
    const x = (s: string): string => expandVars(s, lookup);
    const mask = (s: string): string => maskSecrets(s, this.ctx?.secretValues ?? []);
    const to = due.mail.to.map(x).map((s) => s.trim()).filter((s) => s !== '');
    if (to.length === 0) throw new Error(`${mailBlockOf(due)}.to names no recipient`);
    return {
      event: due.event, dagName: run.spec.dagName, dagRunId: run.spec.dagRunId, ...(due.step ? { step: due.step } : {}),
      smtp: mapStrings(run.spec.definition.smtp ?? {}, x) as SmtpConfig,
      from: x(due.mail.from ?? ''), to,
      subject: mask(noticeSubject(due, run, x(due.mail.prefix ?? ''))),
      text: mask(noticeText(due, run, x)),
      attachments: due.mail.attachLogs ? await this.logs(due, run) : [],
    };
  }

  private async lookup(run: DagRunResource): Promise<Lookup> {
    if (!this.ctx) return buildExpansionLookup(filterSystemEnv(this.deps.systemEnv));
    return this.ctx.lookup(await this.ctx.stepEnv(undefined, run.status.run, []));
  }

  /** The logs of the failed step (stepError), else of every step and handler that ran, in order. */
  private async logs(due: NoticeDue, run: DagRunResource): Promise<NotificationAttachment[]> {
    const s = run.status.run;
    const nodes = due.step !== undefined
      ? [findNode(run.spec.definition, s, due.step)].filter((n): n is NodeState => n !== undefined)
      : [...s.nodes, ...s.handlers].filter((n) => n.status !== NodeStatus.NotStarted);
    const out: NotificationAttachment[] = [];
    for (const node of nodes) {
      const step = stepOf(run.spec.definition, node);
      if (step) out.push(...await this.nodeLogs(run, node, step));
    }
    return out;
  }

  private async nodeLogs(run: DagRunResource, node: NodeState, step: StepDefinition): Promise<NotificationAttachment[]> {
    const merged = isMerged(run, step);
    const execs: ExecRef[] = node.items && node.items.length > 0
      ? node.items.map((i) => ({ node: node.name, attempt: Math.max(0, i.attempt - 1), item: i.index }))
      : [{ node: node.name, attempt: Math.max(0, node.attempt - 1) }];
    const out: NotificationAttachment[] = [];
    for (const exec of execs) {
      for (const stream of merged ? ['stdout' as const] : ['stdout' as const, 'stderr' as const]) {
        const text = await this.deps.logs.text(execLogOf(run, step, exec, stream), MAX_LOG_BYTES + 1).catch(() => undefined);
        if (!text) continue;
        const name = `${node.name.replace(/[^A-Za-z0-9_.-]/g, '_')}${exec.item !== undefined ? `.item${exec.item}` : ''}`;
        out.push({
          filename: merged ? `${name}.log` : `${name}.${stream}.log`,
          content: Buffer.byteLength(text) > MAX_LOG_BYTES ? `${text.slice(0, MAX_LOG_BYTES)}\n[cut at ${MAX_LOG_BYTES} bytes]\n` : text,
        });
      }
    }
    return out;
  }
}

const mailBlockOf = (due: NoticeDue): string =>
  due.event === 'success' ? 'infoMail' : due.event === 'wait' ? 'waitMail' : 'errorMail';
