/**
 * The connection settings of an ssh step from its effective config (the step's ssh fields, or the
 * DAG-level ssh block when the step has none: spec/step-config.ts). Bad values are StepErrors naming
 * the field.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { StepError, text } from '../runner.js';
import { shellText } from './remote.js';

export interface SshSettings {
  host: string;
  port: number;
  user: string;
  /** Private key file, absolute (`~` expanded, relative to the step's working directory). */
  key?: string;
  password?: string;
  strictHostKey: boolean;
  /** Absolute path of the known_hosts file. */
  knownHostFile: string;
  /** Remote shell command line (config.shell), e.g. `bash -e`. */
  shell?: string;
}

/** `host:port`, with an IPv6 address in brackets: how errors name the server. */
export const endpoint = (s: { host: string; port: number }): string => (s.host.includes(':') ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`);

/** A path with `~` as the local user's home; a relative one is relative to `base`. */
export function localPath(path: string, home: string, base: string): string {
  const p = path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
  return isAbsolute(p) ? p : resolve(base, p);
}

function need(config: Record<string, unknown>, field: string): string {
  const v = text(config, field)?.trim();
  if (!v) throw new StepError(`ssh step: config.${field} is required (in the step's config or the DAG's ssh block)`);
  return v;
}

/** Port "22" by default ("" and "0" too, as the reference treats them). */
function port(config: Record<string, unknown>): number {
  const v = text(config, 'port')?.trim() ?? '';
  if (v === '' || v === '0') return 22;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new StepError(`ssh step: config.port "${v}" is not a port number (1-65535)`);
  return n;
}

function strict(config: Record<string, unknown>): boolean {
  const v = config.strictHostKey;
  if (v === undefined || v === null || v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new StepError('ssh step: config.strictHostKey must be true or false');
}

export function sshSettings(config: Record<string, unknown>, home: string, workingDir: string): SshSettings {
  const key = text(config, 'key')?.trim();
  const password = text(config, 'password');
  const shell = shellText(config.shell);
  return {
    host: need(config, 'host'),
    port: port(config),
    user: need(config, 'user'),
    ...(key ? { key: localPath(key, home, workingDir) } : {}),
    ...(password ? { password } : {}),
    strictHostKey: strict(config),
    knownHostFile: localPath(text(config, 'knownHostFile')?.trim() || '~/.ssh/known_hosts', home, workingDir),
    ...(shell ? { shell } : {}),
  };
}
