/**
 * Where step Pods write: the files of the filesystem log store, on a volume the operator and every step
 * Pod mount at the same path (a ReadWriteMany claim; on the test bed, the host's directory). Beside the
 * logs, each execution's result file: `<attempt>/exec/results/<record key>.json`.
 * Every step Pod can write anywhere on the volume, so every file here is opened under the log store's root
 * without following links (fs/safe-open.ts): a link planted at a log, a result or a directory is neither
 * read (a planted stdout captures nothing, a planted result is no result) nor appended through.
 */
import { closeSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ExecRequest } from '../../../core/ports/executor.js';
import type { FsLogStore } from '../../logstore/fs-log-store.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { absentIfPlanted, dirsUnder, ensureDirUnder, isPlanted, openForAppend, readHeadUnder } from '../../fs/safe-open.js';
import { isEntryResult, type EntryResult } from './outcome.js';
import type { PodFiles } from './pod-launcher.js';
import type { PodFilePaths } from './pod-spec.js';

/** An entry's result is a few hundred bytes of JSON. */
const MAX_RESULT_BYTES = 64 * 1024;

export class FsPodFiles implements PodFiles {
  readonly uploads = false;

  constructor(private readonly logs: FsLogStore) {}

  paths(req: ExecRequest): PodFilePaths {
    const f = this.logs.execFiles(req.identity, req.merged);
    const exec = dirname(f.recordFile);
    return { stdout: f.stdout, stderr: f.stderr, result: join(exec, 'results', `${f.recordKey}.json`), root: dirname(exec) };
  }

  async forPod(req: ExecRequest): Promise<PodFilePaths> {
    return this.paths(req);
  }

  /** The agent directory of the run attempt's container (requests, signals), beside its logs. */
  agentDir(req: ExecRequest): string {
    return join(this.paths(req).root, 'agent');
  }

  /** A planted result is no result: the operator writes its own over it (rename replaces the link). */
  async hasResult(req: ExecRequest): Promise<boolean> {
    return (await this.resultText(req)) !== undefined;
  }

  async readResult(req: ExecRequest): Promise<EntryResult | undefined> {
    const text = await this.resultText(req);
    if (text === undefined) return undefined;
    const v: unknown = JSON.parse(text);
    return isEntryResult(v) ? v : undefined;
  }

  private resultText(req: ExecRequest): Promise<string | undefined> {
    return absentIfPlanted(readHeadUnder(this.logs.root, this.paths(req).result, MAX_RESULT_BYTES));
  }

  async writeResult(req: ExecRequest, r: EntryResult): Promise<void> {
    const file = this.paths(req).result;
    ensureDirUnder(this.logs.root, dirname(file));
    await writeFileAtomic(file, JSON.stringify(r), { mkdir: false });
  }

  readStdout(req: ExecRequest, maxBytes: number): Promise<string | undefined> {
    return absentIfPlanted(readHeadUnder(this.logs.root, this.paths(req).stdout, maxBytes));
  }

  /** A planted stderr log gets no note (the note is the operator's, the log is the step's). */
  async note(req: ExecRequest, line: string): Promise<void> {
    let fd: number;
    try {
      fd = openForAppend(this.logs.root, this.paths(req).stderr);
    } catch (e) {
      if (isPlanted(e)) return;
      throw e;
    }
    try { writeSync(fd, `${line}\n`); } finally { closeSync(fd); }
  }

  /** Removes the logs, never through a directory a step replaced with a link (that would remove another run's). */
  async discard(req: ExecRequest): Promise<void> {
    const p = this.paths(req);
    for (const file of new Set([p.stdout, p.stderr])) {
      let present: boolean;
      try {
        present = dirsUnder(this.logs.root, file);
      } catch (e) {
        if (isPlanted(e)) continue;
        throw e;
      }
      if (present) await rm(file, { force: true });
    }
  }
}
