/** The embedded ArtifactStore: logs, outputs.json and exec records under each run's directory. */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArtifactStore } from '../../core/ports/engine-ports.js';
import type { RunKey, RunStore } from '../../core/ports/run-store.js';
import { readHead, writeFileAtomic } from '../fs/atomic.js';
import { Appender } from '../fs/appender.js';

/** Node names become file names: anything but [A-Za-z0-9_.-] is replaced, and a hash keeps them distinct. */
export function safeFileName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_').slice(0, 80);
  if (clean === name) return clean;
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `${clean}-${h.toString(16)}`;
}

export class FsArtifactStore implements ArtifactStore {
  private readonly runLogs = new Appender();

  constructor(private readonly store: Pick<RunStore, 'runDir'>) {}

  private attemptDir(key: RunKey, attemptId: string): string {
    return join(this.store.runDir(key), 'attempts', safeFileName(attemptId));
  }

  execPaths(key: RunKey, attemptId: string, node: string, attempt: number, item: number | undefined, merged: boolean) {
    const dir = this.attemptDir(key, attemptId);
    const base = `${safeFileName(node)}${item !== undefined ? `.item${item}` : ''}`;
    const logs = join(dir, 'logs');
    return {
      stdout: join(logs, merged ? `${base}.log` : `${base}.out`),
      stderr: join(logs, merged ? `${base}.log` : `${base}.err`),
      // One file per attempt, appended to: creating a file costs several times an append (ADR 0001).
      recordFile: join(dir, 'exec', 'records'), recordKey: `${base}.${attempt}`, scratchDir: join(dir, 'scratch'),
    };
  }

  runLogPath(key: RunKey, attemptId: string): string {
    return join(this.attemptDir(key, attemptId), 'run.log');
  }

  /**
   * One timestamped line per line of text. Synchronous on purpose, through a descriptor kept open: one
   * small O_APPEND write costs less than the thread-pool round trips of the async form, and the driver
   * calls it on every state change.
   */
  async appendRunLog(key: RunKey, attemptId: string, text: string): Promise<void> {
    const path = this.runLogPath(key, attemptId);
    const at = new Date().toISOString();
    const body = text.split('\n').map((l) => `${at} ${l}\n`).join('');
    this.runLogs.append(path, body);
  }

  async writeOutputs(key: RunKey, attemptId: string, body: unknown): Promise<void> {
    await writeFileAtomic(join(this.attemptDir(key, attemptId), 'outputs.json'), JSON.stringify(body, null, 2));
  }

  async readOutputs(key: RunKey, attemptId: string): Promise<unknown | undefined> {
    const text = await this.readText(join(this.attemptDir(key, attemptId), 'outputs.json'));
    return text === undefined ? undefined : JSON.parse(text);
  }

  async readText(path: string, maxBytes?: number): Promise<string | undefined> {
    try {
      return maxBytes === undefined ? await readFile(path, 'utf8') : await readHead(path, maxBytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw e;
    }
  }

  async ensureDir(path: string): Promise<void> {
    await mkdir(path, { recursive: true });
  }
}
