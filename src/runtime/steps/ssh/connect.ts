/**
 * Opens the SSH connection of an ssh step: host key checked against the known_hosts file unless
 * strictHostKey is false, the auth ways offered in turn. Every failure is a StepError naming the server
 * (refused, unknown host name, handshake timeout, host key refused, login refused); a stop while
 * connecting gives up at once.
 */
import { readFile } from 'node:fs/promises';
import ssh2, { type Client, type ConnectConfig } from 'ssh2';
import { StepError } from '../runner.js';
import type { AuthWay } from './auth.js';
import { parseKnownHosts, preferredAlgorithms, verifyHostKey, type KnownHost } from './known-hosts.js';
import { endpoint, type SshSettings } from './settings.js';

const HANDSHAKE_TIMEOUT_MS = 30_000;
// A server that vanishes mid-command (no FIN, no RST) is noticed within about a minute, not never.
const KEEPALIVE = { keepaliveInterval: 15_000, keepaliveCountMax: 4 };

async function knownHosts(s: SshSettings): Promise<KnownHost[]> {
  try {
    return parseKnownHosts(await readFile(s.knownHostFile, 'utf8'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(e as Error).message})`;
    throw new StepError(`ssh step: the known hosts file ${s.knownHostFile} ${why}: with strictHostKey (the default) the host key of ${endpoint(s)} must be in it; add it (ssh-keyscan -p ${s.port} ${s.host} >> ${s.knownHostFile}) or set strictHostKey: false`);
  }
}

/** What the host key check refused, kept for the error (ssh2 only says the verification failed). */
interface HostCheck {
  verifier: (key: Buffer) => boolean;
  algorithms?: string[];
  refused?: string;
}

async function hostCheck(s: SshSettings): Promise<HostCheck> {
  if (!s.strictHostKey) return { verifier: () => true };
  const entries = await knownHosts(s);
  const check: HostCheck = {
    verifier: (key) => {
      const v = verifyHostKey(entries, { host: s.host, port: s.port, file: s.knownHostFile }, key);
      if (!v.ok) check.refused = v.reason;
      return v.ok;
    },
    algorithms: preferredAlgorithms(entries, s.host, s.port),
  };
  return check;
}

function describe(e: Error & { level?: string; code?: string }, s: SshSettings, ways: AuthWay[], check: HostCheck): string {
  const at = endpoint(s);
  if (check.refused) return `ssh step: ${check.refused}`;
  if (e.level === 'client-authentication') return `ssh step: authentication failed for ${s.user}@${at} (tried ${ways.map((w) => w.label).join(', ')})`;
  if (e.level === 'client-timeout') return `ssh step: no SSH handshake with ${at} within ${HANDSHAKE_TIMEOUT_MS / 1000}s`;
  if (e.code === 'ECONNREFUSED') return `ssh step: cannot connect to ${at}: connection refused`;
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return `ssh step: cannot resolve the host name "${s.host}" (${at}): ${e.code}`;
  return `ssh step: cannot connect to ${at}: ${e.code && !e.message.includes(e.code) ? `${e.code} ` : ''}${e.message}`;
}

function connectConfig(s: SshSettings, ways: AuthWay[], check: HostCheck): ConnectConfig {
  return {
    host: s.host, port: s.port, username: s.user,
    authHandler: ways.map((w) => w.method) as ConnectConfig['authHandler'],
    hostVerifier: check.verifier,
    readyTimeout: HANDSHAKE_TIMEOUT_MS,
    ...KEEPALIVE,
    ...(check.algorithms ? { algorithms: { serverHostKey: check.algorithms as NonNullable<ConnectConfig['algorithms']>['serverHostKey'] } } : {}),
  };
}

/** A logged-in connection; the caller ends it. Errors after login are left to the channel that sees them. */
export async function connect(s: SshSettings, ways: AuthWay[], signal: AbortSignal): Promise<Client> {
  const check = await hostCheck(s);
  if (signal.aborted) throw new StepError('ssh step: stopped');
  const client = new ssh2.Client();
  return new Promise<Client>((resolve, reject) => {
    const fail = (message: string): void => {
      signal.removeEventListener('abort', onAbort);
      client.destroy();
      reject(new StepError(message));
    };
    const onAbort = (): void => fail(`ssh step: stopped while connecting to ${endpoint(s)}`);
    signal.addEventListener('abort', onAbort, { once: true });
    client.on('error', (e) => fail(describe(e, s, ways, check)));
    client.once('close', () => fail(`ssh step: ${endpoint(s)} closed the connection before login`));
    client.once('ready', () => {
      signal.removeEventListener('abort', onAbort);
      client.removeAllListeners('close');
      resolve(client);
    });
    client.connect(connectConfig(s, ways, check));
  });
}
