/**
 * Notification mail of a run (SPEC 2.2 `mailOn` with `infoMail`, `errorMail`, `waitMail`; step
 * `mailOnError`). The engine decides when one is due and writes it whole (recipients, subject, text,
 * attachments from the LogStore, the DAG's `smtp` block with its variables expanded); an adapter only
 * delivers it. A delivery that fails or takes too long is the engine's warning, never the run's failure.
 */
import type { SmtpConfig } from '../spec/types.js';

export type NotificationEvent = 'success' | 'failure' | 'wait' | 'stepError';

export interface NotificationAttachment {
  filename: string;
  content: string;
}

export interface Notification {
  /** The run ended succeeded (or partially), ended failed, went waiting for approval, or a `mailOnError` step failed. */
  event: NotificationEvent;
  dagName: string;
  dagRunId: string;
  /** The step a `stepError` notification is about. */
  step?: string;
  /** The DAG's smtp block, expanded. */
  smtp: SmtpConfig;
  /** Empty when the mail block names no sender (the adapter then chooses one). */
  from: string;
  to: string[];
  subject: string;
  text: string;
  attachments: NotificationAttachment[];
}

export interface Notifier {
  /** Delivers the notification; rejects with a clear reason. An aborted `signal` gives up at once. */
  notify(n: Notification, signal: AbortSignal): Promise<void>;
}
