/**
 * The SMTP server of a DAG (SPEC 2.2 `smtp`: host, port as a string, username, password) and how svc
 * talks to it. Port 465 is implicit TLS; any other port starts in plain text and upgrades with STARTTLS
 * when the server offers it, verifying the server's certificate (a server whose certificate does not
 * verify is an error, never a silent downgrade). Without a username nothing authenticates (as the
 * reference does); with one, the server's AUTH method (PLAIN, LOGIN...) is chosen by the client.
 */
import type { SMTPTransportOptions } from 'nodemailer/lib/smtp-transport';

export class MailError extends Error {}

export interface SmtpServer {
  host: string;
  port: number;
  username?: string;
  password?: string;
}

/** The port of SMTP without one written (RFC 5321). */
export const DEFAULT_SMTP_PORT = 25;
const IMPLICIT_TLS_PORT = 465;

/** Bounds of one delivery's network waits: a dead server is an error in seconds, not minutes. */
const CONNECT_TIMEOUT_MS = 30_000;
const IDLE_TIMEOUT_MS = 60_000;

const textOf = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** The server of an `smtp` block (as written or expanded); a clear error when it names no host or a bad port. */
export function smtpServer(block: unknown): SmtpServer {
  const b = (block !== null && typeof block === 'object' ? block : {}) as Record<string, unknown>;
  const host = textOf(b.host)?.trim();
  if (!host) throw new MailError('no SMTP server: set smtp.host in the DAG');
  const portText = textOf(b.port)?.trim() ?? '';
  const port = portText === '' ? DEFAULT_SMTP_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new MailError(`smtp.port "${portText}" is not a port number (1-65535)`);
  const username = textOf(b.username);
  const password = textOf(b.password);
  return { host, port, ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

export function transportOptions(s: SmtpServer): SMTPTransportOptions {
  return {
    host: s.host, port: s.port, secure: s.port === IMPLICIT_TLS_PORT,
    ...(s.username ? { auth: { user: s.username, pass: s.password ?? '' } } : {}),
    connectionTimeout: CONNECT_TIMEOUT_MS, greetingTimeout: CONNECT_TIMEOUT_MS, socketTimeout: IDLE_TIMEOUT_MS,
    // An aborted or finished delivery lets go of its socket at once.
    socketCloseTimeout: 0,
  };
}
