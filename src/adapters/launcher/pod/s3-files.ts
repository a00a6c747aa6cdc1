/**
 * Where step Pods write when the operator keeps logs in an S3-compatible bucket (ADR 0014): nowhere on a
 * shared volume. Each Pod gets an upload grant for its own execution's keys (execKeyPrefix), by which its
 * entry sends the stdout and stderr logs as chunks of the S3 log store's layout while the step runs, and
 * its result last. The operator reads results and output from the bucket; the API reads the logs there.
 */
import { randomBytes } from 'node:crypto';
import type { ExecRequest } from '../../../core/ports/executor.js';
import { execLog } from '../../../core/ports/log-store.js';
import { execKeyPrefix, logKey, resultKey } from '../../logstore/s3-keys.js';
import type { S3LogStore } from '../../logstore/s3-log-store.js';
import type { S3Objects } from '../../logstore/s3-objects.js';
import type { UploadGrants } from '../../logstore/s3-upload-grant.js';
import { isEntryResult, type EntryResult } from './outcome.js';
import type { PodFiles } from './pod-launcher.js';
import type { PodFilePaths } from './pod-spec.js';

/** How long a step Pod may keep uploading (S3 Signature V4 grants last a week at most). */
const GRANT_SECONDS = 7 * 24 * 3600;

export class S3PodFiles implements PodFiles {
  readonly uploads = true;

  /** `prefix`: the log store's key prefix, normalized (normalizePrefix). */
  constructor(private readonly o: { logs: S3LogStore; objects: S3Objects; prefix: string; grants: UploadGrants }) {}

  async forPod(req: ExecRequest): Promise<PodFilePaths> {
    const e = req.identity;
    const grant = await this.o.grants.grant(execKeyPrefix(this.o.prefix, e), GRANT_SECONDS);
    const upload = {
      ...grant,
      stdout: logKey(this.o.prefix, execLog(e, 'stdout', req.merged)),
      stderr: logKey(this.o.prefix, execLog(e, 'stderr', req.merged)),
      result: resultKey(this.o.prefix, e),
      writer: randomBytes(4).toString('hex'),
    };
    return { stdout: '', stderr: '', result: '', root: '', upload: JSON.stringify(upload) };
  }

  async hasResult(req: ExecRequest): Promise<boolean> {
    return (await this.o.objects.get(resultKey(this.o.prefix, req.identity))) !== undefined;
  }

  async readResult(req: ExecRequest): Promise<EntryResult | undefined> {
    const bytes = await this.o.objects.get(resultKey(this.o.prefix, req.identity));
    if (bytes === undefined) return undefined;
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return isEntryResult(v) ? v : undefined;
  }

  writeResult(req: ExecRequest, r: EntryResult): Promise<void> {
    return this.o.objects.put(resultKey(this.o.prefix, req.identity), JSON.stringify(r), 'application/json');
  }

  readStdout(req: ExecRequest, maxBytes: number): Promise<string | undefined> {
    return this.o.logs.text(execLog(req.identity, 'stdout', req.merged), maxBytes);
  }

  async note(req: ExecRequest, line: string): Promise<void> {
    await this.o.logs.append(execLog(req.identity, 'stderr', req.merged), `${line}\n`);
  }

  async discard(req: ExecRequest): Promise<void> {
    for (const stream of ['stdout', 'stderr'] as const) await this.o.objects.deleteAll(logKey(this.o.prefix, execLog(req.identity, stream, req.merged)));
  }
}
