/**
 * Where step Pods write: the files of the filesystem log store, on a volume the operator and every step
 * Pod mount at the same path (a ReadWriteMany claim; on the test bed, the host's directory). Beside the
 * logs, each execution's result file: `<attempt>/exec/results/<record key>.json`.
 */
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ExecRequest } from '../../../core/ports/executor.js';
import type { FsLogStore } from '../../logstore/fs-log-store.js';
import { readHead, writeFileAtomic } from '../../fs/atomic.js';
import { isEntryResult, type EntryResult } from './outcome.js';
import type { PodFiles } from './pod-launcher.js';
import type { PodFilePaths } from './pod-spec.js';

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

  async hasResult(req: ExecRequest): Promise<boolean> {
    return existsSync(this.paths(req).result);
  }

  async readResult(req: ExecRequest): Promise<EntryResult | undefined> {
    let text: string;
    try {
      text = await readFile(this.paths(req).result, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    const v: unknown = JSON.parse(text);
    return isEntryResult(v) ? v : undefined;
  }

  writeResult(req: ExecRequest, r: EntryResult): Promise<void> {
    return writeFileAtomic(this.paths(req).result, JSON.stringify(r));
  }

  readStdout(req: ExecRequest, maxBytes: number): Promise<string | undefined> {
    return readHead(this.paths(req).stdout, maxBytes);
  }

  async note(req: ExecRequest, line: string): Promise<void> {
    const file = this.paths(req).stderr;
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, `${line}\n`);
  }

  async discard(req: ExecRequest): Promise<void> {
    const p = this.paths(req);
    await rm(p.stdout, { force: true });
    await rm(p.stderr, { force: true });
  }
}
