/**
 * The DAG a command names: a DAG file's path, else a DAG of the DAGs directory by name (`svc start hello`).
 * Every failure is a sentence that says what was looked for, never a raw ENOENT or EISDIR.
 */
import { statSync } from 'node:fs';
import { DomainError } from '../core/errors.js';
import type { LoadedDag } from '../core/ports/engine-ports.js';
import { loadDagFile } from '../main/embedded.js';
import type { CliContext } from './context.js';
import { configPathHints, systemErrorSentence } from './system-error.js';

const WHY: Record<string, string> = {
  EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'it is a directory', ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links', ENAMETOOLONG: 'the path is too long', EMFILE: 'too many open files',
};

/** A file system failure as a sentence about the DAG file. */
function unreadable(path: string, e: unknown): never {
  if (e instanceof DomainError) throw e;
  const code = (e as NodeJS.ErrnoException).code ?? '';
  throw new DomainError('bad_request', `cannot read the DAG file ${path}: ${WHY[code] ?? (e instanceof Error ? e.message : String(e))}`);
}

/** The DAGs directory could not be searched (it is a file, unreadable, ...): what was in the way. */
function unsearchable(ctx: CliContext, name: string, e: unknown): never {
  if (e instanceof DomainError) throw e;
  const why = systemErrorSentence(e, configPathHints(ctx.config));
  throw new DomainError('bad_request', `cannot look for a DAG named "${name}" in the DAGs directory ${ctx.config.dagsDir}: ${why ?? (e instanceof Error ? e.message : String(e))}`);
}

export async function loadDagArg(ctx: CliContext, arg: string): Promise<LoadedDag> {
  const kind = (() => {
    try {
      return statSync(arg).isDirectory() ? 'directory' : 'file';
    } catch {
      return 'none';
    }
  })();
  if (kind === 'directory') throw new DomainError('bad_request', `${arg} is a directory: name a DAG file in it, or a DAG of the DAGs directory`);
  if (kind === 'file') return loadDagFile(arg).catch((e: unknown) => unreadable(arg, e));
  const found = await ctx.deps.dags.find(arg).catch((e: unknown) => unsearchable(ctx, arg, e));
  if (found) return found;
  throw new DomainError('not_found', `no DAG file ${arg}, and no DAG named "${arg}" in the DAGs directory ${ctx.config.dagsDir} (SVC_DAGS_DIR)`);
}
