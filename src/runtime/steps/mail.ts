/**
 * The `mail` step type (SPEC 2.6): config to (a string or a list), from, subject, message, contentType
 * (text/plain, the default, or text/html), attachments (files, relative to the step's working
 * directory), sent through the DAG's `smtp` block (the reference reads the server from there only).
 * Everything is checked and every attachment read before the server is contacted. What is sent is what
 * the user wrote, secrets included; the step's log gets one line (subject and recipients, masked).
 */
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, resolve } from 'node:path';
import { MailError, smtpServer } from '../mail/smtp.js';
import { sendMail, type MailAttachment, type OutgoingMail } from '../mail/send.js';
import { required, StepError, text, type StepRunner } from './runner.js';

export const runMail: StepRunner = async ({ req, io, signal }) => {
  const mail = await composeMail(req.config, req.workingDir);
  let sent;
  try {
    sent = await sendMail(smtpServer(req.config.smtp), mail, signal);
  } catch (e) {
    throw e instanceof MailError ? new StepError(`mail step: ${e.message}`) : e;
  }
  const files = mail.attachments.length === 0 ? '' : ` with ${mail.attachments.length} attachment${mail.attachments.length === 1 ? '' : 's'}`;
  io.out(`Sent "${mail.subject}" to ${sent.accepted.join(', ')}${files}\n`);
  return { exitCode: 0 };
};

/** The message of a step's config, attachments read; a clear StepError for any field that is wrong. */
export async function composeMail(config: Record<string, unknown>, workingDir: string): Promise<OutgoingMail> {
  const to = stringList(config, 'to');
  if (to.length === 0) throw new StepError('mail step: config.to is required (an address or a list of addresses)');
  const from = required(config, 'from', 'mail');
  const body = text(config, 'message') ?? '';
  const attachments = await readAttachments(stringList(config, 'attachments'), workingDir);
  const html = isHtml(text(config, 'contentType'));
  return { from, to, subject: text(config, 'subject') ?? '', ...(html ? { html: body } : { text: body }), attachments };
}

/** text/html sends an HTML body; text/plain (or nothing) a plain one; parameters (`; charset=...`) are fine. */
export function isHtml(contentType: string | undefined): boolean {
  const type = (contentType ?? 'text/plain').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html') return true;
  if (type === 'text/plain' || type === '') return false;
  throw new StepError(`mail step: config.contentType "${contentType}" is not supported (text/plain or text/html)`);
}

/** A string or a list of strings, blanks dropped. */
function stringList(config: Record<string, unknown>, field: string): string[] {
  const v = config[field];
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  if (!list.every((x) => typeof x === 'string')) throw new StepError(`mail step: config.${field} must be a string or a list of strings`);
  return (list as string[]).map((x) => x.trim()).filter((x) => x !== '');
}

async function readAttachments(paths: string[], workingDir: string): Promise<MailAttachment[]> {
  const out: MailAttachment[] = [];
  for (const p of paths) {
    const file = isAbsolute(p) ? p : resolve(workingDir, p);
    try {
      out.push({ filename: basename(file), content: await readFile(file) });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? (e as Error).message})`;
      throw new StepError(`mail step: attachment ${p} ${why}${p === file ? '' : ` (${file})`}`);
    }
  }
  return out;
}
