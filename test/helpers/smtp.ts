/**
 * A real SMTP server for tests (the `smtp-server` package, in this process): listens on 127.0.0.1 on a
 * free port, asks for AUTH PLAIN or LOGIN as one throwaway user (or takes mail without a login), keeps
 * every message it accepts, parsed by `mailparser`, so a test reads from, to, subject, text, html and
 * attachments. STARTTLS is not offered unless a certificate is given. Stopped by stop().
 * Also: a port nothing listens on, and a server that accepts connections and never says a word.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** MAIL FROM and RCPT TO as the server saw them. */
  envelope: { from: string; to: string[] };
  /** Who logged in ('' without a login). */
  user: string;
  parsed: ParsedMail;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: string; contentType: string }[];
}

export interface SmtpTestServer {
  host: string;
  port: number;
  username: string;
  password: string;
  received: ReceivedMail[];
  /** Resolves with the messages once `count` have arrived; rejects after timeoutMs. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  clear(): void;
  stop(): Promise<void>;
}

export interface SmtpOptions {
  /** Require a login (default true). */
  auth?: boolean;
  /** Offer STARTTLS with this key and certificate (PEM). */
  tls?: { key: string | Buffer; cert: string | Buffer };
}

const addresses = (v: ParsedMail['to'] | ParsedMail['from']): string[] =>
  (v === undefined ? [] : Array.isArray(v) ? v : [v]).flatMap((a) => a.value.map((x) => x.address ?? ''));

export async function startSmtp(o: SmtpOptions = {}): Promise<SmtpTestServer> {
  const auth = o.auth ?? true;
  const username = `tester-${randomBytes(3).toString('hex')}`;
  const password = randomBytes(12).toString('base64url');
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    logger: false, banner: 'svc test SMTP',
    authMethods: ['PLAIN', 'LOGIN'], authOptional: !auth, allowInsecureAuth: true,
    ...(o.tls ? { key: o.tls.key, cert: o.tls.cert } : { hideSTARTTLS: true }),
    onAuth(a, _session, cb) {
      if (a.username === username && a.password === password) return cb(null, { user: username });
      return cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      simpleParser(stream).then((parsed) => {
        received.push({
          envelope: { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) },
          user: typeof session.user === 'string' ? session.user : '',
          parsed, from: addresses(parsed.from)[0] ?? '', to: addresses(parsed.to), subject: parsed.subject ?? '',
          text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '',
          attachments: parsed.attachments.map((a) => ({ filename: a.filename ?? '', content: a.content.toString('utf8'), contentType: a.contentType })),
        });
        for (const w of waiters) w();
        cb();
      }, (e: Error) => cb(e));
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
  });
  return {
    host: '127.0.0.1', port, username, password, received,
    waitFor: (count, timeoutMs = 10_000) => new Promise((resolve, reject) => {
      const check = (): void => {
        if (received.length < count) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(received.slice(0, count));
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${received.length} of ${count} messages arrived in ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(check);
      check();
    }),
    clear: () => { received.length = 0; },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port with nothing listening on it (connections are refused). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A server that accepts connections and never answers (no SMTP greeting): a client can only time out. Counts connections made and still open. */
export async function startSilentServer(): Promise<{ port: number; connections(): number; open(): number; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let count = 0;
  const srv: Server = createServer((s) => {
    count += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  const port = await new Promise<number>((resolve) => srv.listen(0, '127.0.0.1', () => resolve((srv.address() as { port: number }).port)));
  return {
    port, connections: () => count, open: () => sockets.size,
    stop: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      srv.close(() => resolve());
    }),
  };
}
