/**
 * Delivers one message to an SMTP server with nodemailer: one connection per message, closed after it
 * (mail from a workflow is rare; a pool would only hold sockets open). Errors say what failed (reaching
 * the server, TLS, authentication, a refused recipient) and never carry the password.
 */
import { createTransport } from 'nodemailer';
import { MailError, transportOptions, type SmtpServer } from './smtp.js';

export interface MailAttachment {
  filename: string;
  content: string | Buffer;
}

export interface OutgoingMail {
  from: string;
  to: string[];
  subject: string;
  /** The body as plain text, or as HTML: exactly one of the two. */
  text?: string;
  html?: string;
  attachments: MailAttachment[];
}

export interface SentMail {
  messageId: string;
  accepted: string[];
}

export async function sendMail(server: SmtpServer, mail: OutgoingMail, signal?: AbortSignal): Promise<SentMail> {
  const transport = createTransport(transportOptions(server));
  try {
    const info = await transport.sendMail({
      ...(mail.from ? { from: mail.from } : {}), to: mail.to, subject: mail.subject,
      ...(mail.html !== undefined ? { html: mail.html } : { text: mail.text ?? '' }),
      attachments: mail.attachments.map((a) => ({ filename: a.filename, content: a.content })),
      ...(signal ? { signal } : {}),
    });
    const rejected = (info.rejected ?? []).map(String);
    if (rejected.length > 0) throw new MailError(`the SMTP server refused the recipients ${rejected.join(', ')}`);
    return { messageId: info.messageId, accepted: (info.accepted ?? []).map(String) };
  } catch (e) {
    throw e instanceof MailError ? e : new MailError(describe(e, server, signal));
  } finally {
    transport.close();
  }
}

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** A failure in words, by nodemailer's error code; the password is blanked wherever it might appear. */
export function describe(e: unknown, s: SmtpServer, signal?: AbortSignal): string {
  const f = (e ?? {}) as SmtpFailure;
  const detail = (f.response ?? f.message ?? String(e)).trim();
  const where = `${s.host}:${s.port}`;
  let text: string;
  switch (f.code) {
    case 'EABORT': text = `sending stopped${signal?.reason instanceof Error ? `: ${signal.reason.message}` : ''}`; break;
    case 'ECONNECTION': case 'ESOCKET': case 'EDNS': text = `cannot reach the SMTP server ${where}: ${detail}`; break;
    case 'ETIMEDOUT': text = `the SMTP server ${where} did not answer in time: ${detail}`; break;
    case 'ETLS': text = `TLS with the SMTP server ${where} failed: ${detail}`; break;
    case 'EAUTH': case 'ENOAUTH': text = `the SMTP server ${where} refused the login of ${s.username ?? '(no username)'}: ${detail}`; break;
    case 'EENVELOPE': text = f.responseCode === 530
      ? `the SMTP server ${where} requires a login (smtp.username and smtp.password): ${detail}`
      : `the SMTP server ${where} refused the message's sender or recipients: ${detail}`; break;
    case 'EMESSAGE': text = `the SMTP server ${where} refused the message: ${detail}`; break;
    default: text = `sending through ${where} failed: ${detail}`;
  }
  return s.password ? text.split(s.password).join('*******') : text;
}
