/**
 * The embedded LogStore: logs, outputs.json and exec records under each run's directory, one folder per
 * attempt. This module is the one place that lays them out:
 *   <runDir>/attempts/<attemptId>/run.log                    the run log
 *                                 logs/<node>[.item<i>].out  stdout (.err stderr, .log when merged)
 *                                 logs/probes/run/<probe>.out              the run's probes (preconditions, dotenv...)
 *                                 logs/probes/steps/<node>[.item<i>]/<probe>.out  a step's
 *                                 exec/records               exec records (runtime/shell/records.ts)
 *                                 scratch/                   generated script files
 *                                 outputs.json
 * Steps can write under <runDir> (embedded they run as this user; on Kubernetes they share the volume):
 * nothing here follows a link or reads a non-regular file below the store's root (fs/safe-open.ts). A
 * planted one reads as absent and an append to it fails; its target is neither read nor written.
 */
import { dirname, join } from 'node:path';
import type { ExecIdentity } from '../../core/naming.js';
import type { LogPage, LogQuery, LogRef, LogStore } from '../../core/ports/log-store.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { Appender } from '../fs/appender.js';
import { absentIfPlanted, ensureDirUnder, readHeadUnder } from '../fs/safe-open.js';
import { FsLogPages } from './fs-pages.js';

/**
 * Node names become file names: anything but [A-Za-z0-9_.-] is replaced, and a hash keeps them distinct.
 * A name ending like an item suffix (`x.item0`) is hashed too: it must not share the files of item 0 of `x`.
 */
export function safeFileName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_').slice(0, 80);
  if (clean === name && !/\.item\d+$/.test(name)) return clean;
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `${clean}-${h.toString(16)}`;
}

/** Where one execution's files live on this machine (the process launcher's view of the layout). */
export interface LocalExecFiles {
  stdout: string;
  /** Equal to stdout when logOutput is merged. */
  stderr: string;
  /** The attempt's exec records file, and this execution's key in it: letters, digits, `_`, `.`, `-`. */
  recordFile: string;
  recordKey: string;
  /** Directory for generated script files. */
  scratchDir: string;
}

/** outputs.json is read whole: past this it is refused rather than held in memory. */
const MAX_OUTPUTS_BYTES = 16 * 1024 * 1024;

export class FsLogStore implements LogStore {
  private readonly appender: Appender;
  private readonly pages: FsLogPages;

  /**
   * `root`: the directory every run directory is under, created by svc (below it nothing is trusted);
   * `runDir`: the run's directory (the local run store's layout).
   */
  constructor(readonly root: string, private readonly runDir: (key: RunKey) => string) {
    this.appender = new Appender(root);
    this.pages = new FsLogPages(root);
  }

  private attemptDir(key: RunKey, attemptId: string): string {
    return join(this.runDir(key), 'attempts', safeFileName(attemptId));
  }

  execFiles(e: ExecIdentity, merged: boolean): LocalExecFiles {
    const dir = this.attemptDir(e, e.attemptId);
    const base = `${safeFileName(e.node)}${e.item !== undefined ? `.item${e.item}` : ''}`;
    // A probe's key ends in letters (`pre0-tok`), a step's in its execution number: never equal.
    const logs = e.probe === undefined ? join(dir, 'logs') : join(dir, 'logs', 'probes', e.node === '' ? 'run' : join('steps', base));
    const name = e.probe === undefined ? base : safeFileName(e.probe);
    return {
      stdout: join(logs, merged ? `${name}.log` : `${name}.out`),
      stderr: join(logs, merged ? `${name}.log` : `${name}.err`),
      // One file per attempt, appended to: creating a file costs several times an append (ADR 0001).
      recordFile: join(dir, 'exec', 'records'),
      recordKey: e.probe === undefined ? `${base}.${e.attempt}` : `${e.node === '' ? '' : `${base}.${e.attempt}.`}${name}`,
      scratchDir: join(dir, 'scratch'),
    };
  }

  /** The file of a log. */
  locate(ref: LogRef): string {
    if (ref.kind === 'run') return join(this.attemptDir(ref.run, ref.attemptId), 'run.log');
    return this.execFiles(ref.exec, ref.merged)[ref.stream];
  }

  /**
   * Synchronous on purpose, through a descriptor kept open: one small O_APPEND write costs less than the
   * thread-pool round trips of the async form, and the driver appends to the run log on every state change.
   */
  async append(ref: LogRef, text: string): Promise<void> {
    this.appender.append(this.locate(ref), text);
  }

  page(ref: LogRef, q: LogQuery): Promise<LogPage | undefined> {
    return this.pages.read(this.locate(ref), q);
  }

  async text(ref: LogRef, maxBytes: number): Promise<string | undefined> {
    return absentIfPlanted(readHeadUnder(this.root, this.locate(ref), maxBytes));
  }

  /** Renamed into place (rename replaces a planted link, never writes through it), in directories checked on the way. */
  async writeOutputs(key: RunKey, attemptId: string, body: unknown): Promise<void> {
    const file = join(this.attemptDir(key, attemptId), 'outputs.json');
    ensureDirUnder(this.root, dirname(file));
    await writeFileAtomic(file, JSON.stringify(body, null, 2), { mkdir: false });
  }

  async readOutputs(key: RunKey, attemptId: string): Promise<unknown | undefined> {
    const file = join(this.attemptDir(key, attemptId), 'outputs.json');
    const text = await absentIfPlanted(readHeadUnder(this.root, file, MAX_OUTPUTS_BYTES + 1));
    if (text === undefined) return undefined;
    if (Buffer.byteLength(text) > MAX_OUTPUTS_BYTES) throw new Error(`${file} is over ${MAX_OUTPUTS_BYTES} bytes`);
    return JSON.parse(text);
  }
}

