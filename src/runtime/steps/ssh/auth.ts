/**
 * How an ssh step authenticates: config.key (a private key file), then config.password when both are
 * given; with neither, the standard key files of the local user (~/.ssh/id_ed25519, id_ecdsa, id_rsa)
 * are offered in turn, as ssh does. Keys are read and parsed before connecting, so an unreadable or
 * passphrase-protected key is a clear error, not a failed login.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ssh2, { type AuthenticationType } from 'ssh2';
import { StepError } from '../runner.js';
import type { SshSettings } from './settings.js';

export const DEFAULT_KEY_FILES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

/** One way to log in, as ssh2's authHandler list takes it, with a label for error messages. */
export interface AuthWay {
  method: { type: AuthenticationType; username: string; key?: Buffer; password?: string };
  label: string;
}

/** The key file parsed, or why it cannot be used. */
async function loadKey(path: string): Promise<Buffer | string> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
  }
  const parsed = ssh2.utils.parseKey(data);
  if (parsed instanceof Error) return /passphrase/i.test(parsed.message) ? 'it is protected by a passphrase (not supported: use a key without one)' : parsed.message;
  return data;
}

export async function authWays(s: SshSettings, home: string): Promise<AuthWay[]> {
  const ways: AuthWay[] = [];
  const key = (k: Buffer, file: string): AuthWay => ({ method: { type: 'publickey', username: s.user, key: k }, label: `key ${file}` });
  if (s.key) {
    const k = await loadKey(s.key);
    if (typeof k === 'string') throw new StepError(`ssh step: cannot use config.key ${s.key}: ${k}`);
    ways.push(key(k, s.key));
  }
  if (s.password !== undefined) ways.push({ method: { type: 'password', username: s.user, password: s.password }, label: 'password' });
  if (ways.length > 0) return ways;
  const skipped: string[] = [];
  for (const name of DEFAULT_KEY_FILES) {
    const file = join(home, '.ssh', name);
    const k = await loadKey(file);
    if (typeof k !== 'string') ways.push(key(k, file));
    else if (k !== 'no such file') skipped.push(`${file}: ${k}`);
  }
  if (ways.length > 0) return ways;
  throw new StepError(`ssh step: no way to log in to ${s.user}@${s.host}: set config.key or config.password, or create one of ${DEFAULT_KEY_FILES.map((f) => join(home, '.ssh', f)).join(', ')}${skipped.length ? ` (skipped ${skipped.join('; ')})` : ''}`);
}
