/**
 * The Notifier of svc: run notifications (SPEC 2.2 mailOn, step mailOnError) as plain-text mail through
 * the DAG's SMTP server, the same sender as the `mail` step. A mail block without `from` is sent from the
 * SMTP username when that is an address, else from svc@<the service's host name>.
 */
import { hostname } from 'node:os';
import type { Notification, Notifier } from '../../core/ports/notifier.js';
import { smtpServer, type SmtpServer } from './smtp.js';

export class SmtpNotifier implements Notifier {
  async notify(n: Notification, signal: AbortSignal): Promise<void> {
    const server = smtpServer(n.smtp);
    // nodemailer loads with the first notification, not with every process that might send one.
    const { sendMail } = await import('./send.js');
    await sendMail(server, { from: n.from || defaultSender(server), to: n.to, subject: n.subject, text: n.text, attachments: n.attachments }, signal);
  }
}

export function defaultSender(s: SmtpServer): string {
  return s.username?.includes('@') ? s.username : `svc@${hostname()}`;
}
