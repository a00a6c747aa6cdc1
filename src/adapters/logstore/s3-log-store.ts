/**
 * The LogStore on an S3-compatible bucket (the Kubernetes backend: written from step Pods, read by the
 * operator and the API replicas). Layout in s3-keys.ts, appends in s3-writer.ts, reads in s3-reader.ts;
 * ADR 0011 says why.
 *
 * Appends are buffered per log and become visible to other processes once flushed (after at most
 * maxFlushMs, or flush()/close()); this process reads its own appends at once (a read flushes the log
 * first). A writer calls close() before it exits.
 */
import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { LogPage, LogQuery, LogRef, LogStore } from '../../core/ports/log-store.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { logKey, normalizePrefix, outputsKey } from './s3-keys.js';
import { S3Objects } from './s3-objects.js';
import { pageOf, type ByteSource } from './pager.js';
import { S3LogReader } from './s3-reader.js';
import { S3ChunkWriter } from './s3-writer.js';

export interface S3LogStoreOptions {
  /** The client (endpoint, region, credentials; `forcePathStyle` for most S3-compatible servers). */
  client: S3Client;
  bucket: string;
  /** Every key starts with it (default '': the bucket's root); leading and trailing `/` are ignored. */
  prefix?: string;
  /** A log's first buffered append is written after this long (default 250 ms)... */
  flushMs?: number;
  /** ...and each later chunk of it one flushMs later than the last, up to this (default 5000 ms). */
  maxFlushMs?: number;
  /** A log's buffer is written at once when it holds this many bytes (default 1 MiB). */
  flushBytes?: number;
  /** Chunks kept in memory once read (default 32 MiB). */
  cacheBytes?: number;
  /** The clock that stamps chunk names (default Date.now). */
  now?: () => number;
  /** Told of a write that failed outside flush()/close() (its text is kept and tried again); default: ignored. */
  onError?: (e: unknown) => void;
}

const withDefaults = (o: S3LogStoreOptions): Required<S3LogStoreOptions> => ({
  client: o.client, bucket: o.bucket, prefix: o.prefix ?? '',
  flushMs: o.flushMs ?? 250, maxFlushMs: o.maxFlushMs ?? 5000, flushBytes: o.flushBytes ?? 1024 * 1024,
  cacheBytes: o.cacheBytes ?? 32 * 1024 * 1024, now: o.now ?? Date.now, onError: o.onError ?? (() => undefined),
});

export class S3LogStore implements LogStore {
  private readonly objects: S3Objects;
  private readonly prefix: string;
  private readonly reader: S3LogReader;
  private readonly writer: S3ChunkWriter;

  constructor(options: S3LogStoreOptions) {
    const o = withDefaults(options);
    this.objects = new S3Objects(o.client, o.bucket);
    this.prefix = normalizePrefix(o.prefix);
    this.reader = new S3LogReader(this.objects, o.cacheBytes);
    this.writer = new S3ChunkWriter(this.objects, {
      flushMs: o.flushMs, maxFlushMs: o.maxFlushMs, flushBytes: o.flushBytes,
      now: o.now, onError: o.onError, writerId: randomBytes(4).toString('hex'),
    });
  }

  /** `s3://<bucket>/<key prefix of the log's chunks>/`. */
  locate(ref: LogRef): string {
    return `s3://${this.objects.bucket}/${logKey(this.prefix, ref)}`;
  }

  append(ref: LogRef, text: string): Promise<void> {
    return this.writer.append(logKey(this.prefix, ref), text);
  }

  async page(ref: LogRef, q: LogQuery): Promise<LogPage | undefined> {
    const src = await this.source(ref);
    return src === undefined ? undefined : pageOf(src, q);
  }

  async text(ref: LogRef, maxBytes: number): Promise<string | undefined> {
    const src = await this.source(ref);
    return src === undefined ? undefined : (await src.read(0, maxBytes)).toString('utf8');
  }

  async writeOutputs(run: RunKey, attemptId: string, body: unknown): Promise<void> {
    await this.objects.put(outputsKey(this.prefix, run, attemptId), JSON.stringify(body, null, 2), 'application/json');
  }

  async readOutputs(run: RunKey, attemptId: string): Promise<unknown | undefined> {
    const bytes = await this.objects.get(outputsKey(this.prefix, run, attemptId));
    return bytes === undefined ? undefined : JSON.parse(bytes.toString('utf8'));
  }

  /** Writes every buffered append now: other processes see them once it resolves. */
  flush(): Promise<void> {
    return this.writer.flushAll();
  }

  /** Flushes; appends after it throw. The client stays open (its owner destroys it). */
  close(): Promise<void> {
    return this.writer.close();
  }

  private async source(ref: LogRef): Promise<ByteSource | undefined> {
    const key = logKey(this.prefix, ref);
    await this.writer.flush(key); // read-after-write within this process
    return this.reader.source(key);
  }
}
