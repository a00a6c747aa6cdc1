/**
 * A real OpenSSH server for tests: `/usr/sbin/sshd -D -e -f <temp config>` on 127.0.0.1 on a free port,
 * with its own generated host key, an AuthorizedKeysFile in its temp dir holding two generated client
 * keys (ed25519 and rsa), and password authentication for a dedicated local user `svc-ssh-test` (created
 * with a fresh random password when the tests run as root). Stopped, its directory removed, by stop().
 * Nothing listens beyond loopback; no system sshd is touched.
 */
import { describeWith, freePort, stopProcess } from './needs.js';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const SSHD = process.env.SVC_SSHD_BIN ?? '/usr/sbin/sshd';
export const PASSWORD_USER = 'svc-ssh-test';
const isRoot = (): boolean => process.getuid?.() === 0;

/** Why an sshd cannot be started here, or undefined. */
export function sshdSkipReason(): string | undefined {
  if (!existsSync(SSHD)) return `no OpenSSH server at ${SSHD} (apt-get install openssh-server, or set SVC_SSHD_BIN)`;
  if (spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error) return 'no ssh-keygen on PATH (apt-get install openssh-client)';
  return undefined;
}

/** Why password authentication cannot be tested here (it needs root to create the test user), or undefined. */
export function passwordSkipReason(): string | undefined {
  return sshdSkipReason() ?? (isRoot() ? undefined : `password authentication needs root (to create the local user ${PASSWORD_USER})`);
}

/** describe() for tests that need sshd (or `reason` of their own). Under CI=true a missing server fails; elsewhere it skips loudly. */
export function describeSshd(name: string, fn: () => void, reason = sshdSkipReason()): void {
  describeWith('sshd', reason, name, fn);
}

export interface SshdServer {
  host: string;
  port: number;
  /** The user the key tests log in as: the current user (root here). */
  user: string;
  /** Authorized client keys (private key files) and one key the server does not know. */
  keys: { ed25519: string; rsa: string; stranger: string };
  /** The server's host public key line (`ssh-ed25519 AAAA...`). */
  hostKey: string;
  /** A known_hosts line for this server (`[127.0.0.1]:port ssh-ed25519 AAAA...`). */
  knownHostsLine: string;
  /** The password user and its password, when the helper could set one up (root only). */
  password?: { user: string; password: string };
  dir: string;
  /** The server's log (sshd -e writes it to stderr). */
  log(): string;
  stop(): Promise<void>;
}


/** Generates an unencrypted key pair; returns the private key file (the public one is `<file>.pub`). */
export function keygen(file: string, type: 'ed25519' | 'rsa' | 'ecdsa' = 'ed25519'): string {
  const r = spawnSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', 'svc-test', '-f', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh-keygen -t ${type} failed: ${r.stderr}`);
  return file;
}

const publicKey = (file: string): string => readFileSync(`${file}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');

function run(cmd: string, args: string[], input?: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.error?.message}`);
}

/** The dedicated password user, created if absent, with a new random password each time. */
function passwordUser(): { user: string; password: string } | undefined {
  if (!isRoot()) return undefined;
  if (spawnSync('id', [PASSWORD_USER], { stdio: 'ignore' }).status !== 0) run('useradd', ['-m', '-s', '/bin/sh', PASSWORD_USER]);
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  run('chpasswd', [], `${PASSWORD_USER}:${password}\n`);
  return { user: PASSWORD_USER, password };
}

function config(dir: string, port: number, users: string[]): string {
  return [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_ed25519')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin yes',
    // The temp dir is under the world-writable /tmp: StrictModes would refuse its authorized_keys.
    'StrictModes no',
    'UsePAM no',
    `AllowUsers ${users.join(' ')}`,
    'PrintMotd no',
    'LogLevel VERBOSE',
    '',
  ].join('\n');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function listening(proc: ChildProcess, log: () => string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`sshd exited (${proc.exitCode ?? proc.signalCode}): ${log().slice(-2000)}`);
    if (/Server listening on 127\.0\.0\.1 port/.test(log())) return;
    await sleep(20);
  }
  throw new Error(`sshd did not listen within ${timeoutMs} ms: ${log().slice(-2000)}`);
}


/** Writes keys and config into `dir`; returns what the server needs to start and what tests need to know. */
function prepare(dir: string) {
  keygen(join(dir, 'host_ed25519'));
  const keys = { ed25519: keygen(join(dir, 'client_ed25519')), rsa: keygen(join(dir, 'client_rsa'), 'rsa'), stranger: keygen(join(dir, 'stranger_ed25519')) };
  writeFileSync(join(dir, 'authorized_keys'), `${publicKey(keys.ed25519)}\n${publicKey(keys.rsa)}\n`, { mode: 0o644 });
  // sshd reads authorized_keys as the user logging in: the password user (not root) must reach it.
  chmodSync(dir, 0o755);
  // sshd (privilege separation) needs this directory; a container may not have it.
  if (isRoot()) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  return { keys, hostKey: publicKey(join(dir, 'host_ed25519')), password: passwordUser(), user: userInfo().username };
}

/** Starts sshd on `port` (default: a free one); a second try on another free port if the first was taken meanwhile. */
export async function startSshd(opts: { port?: number } = {}): Promise<SshdServer> {
  const reason = sshdSkipReason();
  if (reason) throw new Error(reason);
  const dir = mkdtempSync(join(tmpdir(), 'svc-sshd-'));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    const prepared = prepare(dir);
    for (let attempt = 1; ; attempt++) {
      const port = opts.port ?? await freePort();
      try {
        return await startOnce(dir, port, prepared, cleanup);
      } catch (e) {
        if (attempt >= 2 || opts.port !== undefined) throw e;
      }
    }
  } catch (e) {
    cleanup();
    throw e;
  }
}

async function startOnce(dir: string, port: number, p: ReturnType<typeof prepare>, cleanup: () => void): Promise<SshdServer> {
  const file = join(dir, 'sshd_config');
  writeFileSync(file, config(dir, port, [p.user, ...(p.password ? [p.password.user] : [])]));
  // sshd re-executes itself: it must be started by its absolute path.
  const proc = spawn(SSHD, ['-D', '-e', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr?.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-64_000); });
  try {
    await listening(proc, () => log);
  } catch (e) {
    await stopProcess(proc);
    throw e;
  }
  const host = '127.0.0.1';
  return {
    host, port, user: p.user, keys: p.keys, hostKey: p.hostKey, dir,
    knownHostsLine: `[${host}]:${port} ${p.hostKey}`,
    ...(p.password ? { password: p.password } : {}),
    log: () => log,
    stop: async () => { await stopProcess(proc); cleanup(); },
  };
}

