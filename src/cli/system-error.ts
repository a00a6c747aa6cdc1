/**
 * The last resort of the command line (issue 20, item 8): a Node system error that reached the top (a data
 * directory that is a file, a port in use, a server that refuses connections) becomes a sentence that
 * names the path or address and says what was wrong, never a raw `ENOENT: no such file or directory, ...`.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from '../config/config.js';

/** A directory of the configuration, named in the sentence when the failing path is inside it. */
export interface PathHint {
  dir: string;
  /** e.g. `the data directory, SVC_DATA_DIR`. */
  what: string;
}

/** The directories of the configuration, most specific first (the DAGs directory may be inside the data directory). */
export const configPathHints = (c: Pick<Config, 'dagsDir' | 'dataDir'>): PathHint[] => [
  { dir: c.dagsDir, what: 'the DAGs directory, SVC_DAGS_DIR' }, { dir: c.dataDir, what: 'the data directory, SVC_DATA_DIR' },
];

interface SystemError {
  code: string;
  syscall?: string;
  path?: string;
  dest?: string;
  address?: string;
  port?: number;
}

/** What the failing call was doing, by its syscall. */
const ACTION: Record<string, string> = {
  open: 'open', read: 'read', write: 'write', scandir: 'list the directory', opendir: 'list the directory',
  mkdir: 'create the directory', rmdir: 'remove the directory', unlink: 'remove', rm: 'remove', stat: 'read', lstat: 'read',
  access: 'reach', rename: 'move', copyfile: 'copy', symlink: 'link', chmod: 'change the mode of', utime: 'touch',
};

/** Why, for the errors of a path. */
const PATH_WHY: Record<string, string> = {
  ENOENT: 'it does not exist', EACCES: 'permission denied', EPERM: 'operation not permitted',
  EISDIR: 'it is a directory, where a file was expected', EROFS: 'the file system is read-only', ENOSPC: 'no space left on the device',
};

/** The system error in `e`: itself, its cause (fetch), or the first of an AggregateError (a connect to each address). */
function systemErrorIn(e: unknown, depth = 0): SystemError | undefined {
  if (!e || typeof e !== 'object' || depth > 3) return undefined;
  const err = e as Partial<SystemError> & { cause?: unknown; errors?: unknown[] };
  if (typeof err.code === 'string' && /^E[A-Z]+$/.test(err.code) && (err.syscall !== undefined || err.path !== undefined || err.address !== undefined)) return err as SystemError;
  return systemErrorIn(err.cause, depth + 1) ?? systemErrorIn(err.errors?.[0], depth + 1);
}

/** ENOTDIR: the part of the path (itself or a parent) that exists and is not a directory. */
function notADirectory(path: string): string | undefined {
  for (let p = path, prev = ''; p !== prev; prev = p, p = dirname(p)) {
    try {
      if (!statSync(p).isDirectory()) return p;
    } catch { /* not there either: look higher */ }
  }
  return undefined;
}

function hintFor(path: string, hints: PathHint[]): string {
  const h = hints.find((x) => path === x.dir || path.startsWith(`${x.dir.replace(/\/$/, '')}/`));
  return h ? ` (${h.what})` : '';
}

function pathSentence(e: SystemError & { path: string }, hints: PathHint[]): string | undefined {
  // The hint names the directory setting of the culprit: the file in the way, else the path itself.
  const file = e.code === 'ENOTDIR' ? notADirectory(e.path) : undefined;
  const why = e.code !== 'ENOTDIR' ? PATH_WHY[e.code] : file ? `${file} is a file, not a directory` : 'a part of the path is not a directory';
  if (!why) return undefined;
  const action = ACTION[e.syscall ?? ''] ?? 'use';
  const target = e.dest ? `${e.path} to ${e.dest}` : e.path;
  return `cannot ${action} ${target}: ${why}${hintFor(file ?? e.path, hints)}`;
}

function addressSentence(e: SystemError): string | undefined {
  const at = e.port !== undefined ? `${e.address?.includes(':') ? `[${e.address}]` : e.address}:${e.port}` : `${e.address}`;
  if (e.code === 'EADDRINUSE') return `cannot listen on ${at}: the address is already in use (another process listens there)`;
  if (e.code === 'EADDRNOTAVAIL') return `cannot listen on ${at}: no network interface of this machine has that address`;
  if (e.code === 'ECONNREFUSED') return `cannot connect to ${at}: the connection was refused (nothing listens there)`;
  if (e.code === 'EACCES' && e.syscall === 'listen') return `cannot listen on ${at}: permission denied (ports below 1024 need privileges)`;
  if (e.code === 'ETIMEDOUT' || e.code === 'EHOSTUNREACH') return `cannot connect to ${at}: ${e.code === 'ETIMEDOUT' ? 'the connection timed out' : 'the host is unreachable'}`;
  return undefined;
}

/** `e` as a sentence when it is a Node system error this knows; undefined otherwise. */
export function systemErrorSentence(e: unknown, hints: PathHint[] = []): string | undefined {
  const err = systemErrorIn(e);
  if (!err) return undefined;
  if (err.address !== undefined) return addressSentence(err);
  if (err.path !== undefined) return pathSentence(err as SystemError & { path: string }, hints);
  // Some calls do not say their path (readFile of a directory fails in `read`): what, at least.
  const why = err.code === 'ENOTDIR' ? 'a part of its path is not a directory' : PATH_WHY[err.code];
  return why ? `cannot ${ACTION[err.syscall ?? ''] ?? 'use'} a file: ${why}` : undefined;
}
