/**
 * The S3 log store against a real MinIO server on loopback (test/helpers/minio.ts): the LogStore
 * conformance suite, then what is particular to S3 (chunks, a second process, keys, failures).
 */
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { ExecIdentity } from '../../core/naming.js';
import { execLog, runLog } from '../../core/ports/log-store.js';
import { logStoreConformance } from './conformance.js';
import { S3LogStore, type S3LogStoreOptions } from './s3-log-store.js';

// test/helpers lies outside tsconfig's rootDir (src), so it is loaded at run time and typed here.
interface MinioServer {
  endpoint: string;
  client(): S3Client;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}
const helpers = '../../../test/helpers/minio.js';
const { describeMinio, startMinio } = (await import(helpers)) as {
  describeMinio(name: string, fn: () => void): void;
  startMinio(): Promise<MinioServer>;
};

const BUCKET = 'svc-logs';
const exec = (over: Partial<ExecIdentity> = {}): ExecIdentity => ({ dagName: 'etl', dagRunId: 'r1', attemptId: 'a1', node: 'load', attempt: 0, ...over });
const run = { dagName: 'etl', dagRunId: 'r1' };

describeMinio('S3LogStore on MinIO', () => {
  let minio: MinioServer;
  let client: S3Client;
  const opened: S3LogStore[] = [];
  let prefixes = 0;

  /** A store under a prefix of its own (a fresh, empty store) unless one is given. */
  const store = (over: Partial<S3LogStoreOptions> = {}): S3LogStore => {
    const s = new S3LogStore({ client, bucket: BUCKET, prefix: `t${++prefixes}`, ...over });
    opened.push(s);
    return s;
  };
  const keys = async (prefix: string): Promise<string[]> => {
    const res = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
    return (res.Contents ?? []).map((o) => o.Key ?? '');
  };
  /** Counts the GETs a fresh client (another process) makes. */
  const countingClient = (): { client: S3Client; gets: () => number } => {
    const c = minio.client();
    let gets = 0;
    const send = c.send.bind(c) as (cmd: unknown) => Promise<unknown>;
    (c as { send: unknown }).send = (cmd: unknown) => {
      if (cmd instanceof GetObjectCommand) gets++;
      return send(cmd);
    };
    return { client: c, gets: () => gets };
  };

  beforeAll(async () => {
    minio = await startMinio();
    await minio.createBucket(BUCKET);
    client = minio.client();
  }, 60_000);
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    client?.destroy();
    await minio?.stop();
  });

  logStoreConformance('S3LogStore (MinIO)', async () => store());

  it('buffers many small appends into few chunk objects, bounded by bytes', async () => {
    const logs = store({ flushMs: 60_000, maxFlushMs: 60_000, flushBytes: 1024 });
    const ref = execLog(exec(), 'stdout', false);
    const lines = Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(40)}\n`);
    for (const line of lines) await logs.append(ref, line);
    const total = lines.join('').length;
    const chunks = await keys(logs.locate(ref).replace(`s3://${BUCKET}/`, ''));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.length).toBeLessThanOrEqual(Math.ceil(total / 1024));
    expect(await logs.page(ref, { tail: 1 })).toMatchObject({ content: lines[199]!.trimEnd(), totalLines: 200 });
  });

  it('another instance (another process) reads what the first wrote once flushed, fetching each chunk once', async () => {
    const other = countingClient();
    const reader = store({ client: other.client, prefix: 't-shared' });
    const shared = store({ flushMs: 60_000, maxFlushMs: 60_000, prefix: 't-shared' });
    const ref = execLog(exec(), 'stderr', false);
    await shared.append(ref, 'one\n');
    expect(await reader.page(ref, {})).toBeUndefined();
    await shared.flush();
    expect(await reader.page(ref, {})).toMatchObject({ content: 'one', totalLines: 1 });
    await shared.append(ref, 'two\n');
    await shared.close();
    expect(await reader.page(ref, { tail: 5 })).toMatchObject({ content: 'one\ntwo', totalLines: 2 });
    expect(other.gets()).toBe(2);
    expect(await reader.text(ref, 100)).toBe('one\ntwo\n');
    expect(other.gets()).toBe(2);
    other.client.destroy();
  });

  it('a timed flush publishes appends without an explicit flush', async () => {
    const writer = store({ flushMs: 20 });
    const reader = store({ prefix: `t${prefixes}` });
    const ref = runLog(run, 'a1');
    await writer.append(ref, 'started\n');
    const until = Date.now() + 5000;
    let page = await reader.page(ref, {});
    while (page === undefined && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
      page = await reader.page(ref, {});
    }
    expect(page).toMatchObject({ content: 'started' });
  });

  it('a later writer appends after the last chunk even when its clock is behind', async () => {
    const first = store({ now: () => Date.UTC(2030, 0, 1) });
    const prefix = `t${prefixes}`;
    const ref = execLog(exec(), 'stdout', false);
    await first.append(ref, 'first try\n');
    await first.close();
    const retry = store({ prefix, now: () => Date.UTC(2020, 0, 1) });
    await retry.append(execLog(exec({ attempt: 1 }), 'stdout', false), 'second try\n');
    await retry.close();
    expect((await store({ prefix }).page(ref, {}))?.content).toBe('first try\nsecond try');
  });

  it('keys hold no user string as written; locate names the log\'s prefix', async () => {
    const logs = store({ prefix: '/svc/logs/' });
    const odd = exec({ dagName: 'ETL/../x', dagRunId: 'r 1/..', attemptId: '../a', node: 'step ü/\u0007..\\', item: 3 });
    await logs.append(execLog(odd, 'stdout', false), 'odd\n');
    await logs.append(runLog(odd, odd.attemptId), 'run\n');
    await logs.writeOutputs(odd, odd.attemptId, { outputs: { A: '1' } });
    await logs.flush();
    const all = await keys('svc/logs/');
    expect(all).toHaveLength(3);
    for (const key of all) {
      expect(key).toMatch(/^svc\/logs\/runs\/[a-z0-9-]+\/[a-z0-9-]+\/[a-z0-9./-]+$/);
      expect(key.split('/')).not.toContain('..');
    }
    expect(logs.locate(runLog(odd, odd.attemptId))).toMatch(/^s3:\/\/svc-logs\/svc\/logs\/runs\/etl-x-r-1-[a-z0-9]{13}\/a-[a-z0-9]{13}\/run\.log\/$/);
    expect((await logs.page(execLog(odd, 'stdout', false), {}))?.content).toBe('odd');
    expect(await logs.readOutputs(odd, odd.attemptId)).toEqual({ outputs: { A: '1' } });
  });

  it('text() fetches only the chunks that hold its bytes', async () => {
    const other = countingClient();
    const writer = store({ flushBytes: 1 });
    const reader = store({ client: other.client, prefix: `t${prefixes}` });
    const ref = execLog(exec(), 'stdout', false);
    for (let i = 0; i < 10; i++) await writer.append(ref, `chunk ${i}\n`);
    expect(await reader.text(ref, 10)).toBe('chunk 0\nch');
    expect(other.gets()).toBe(2);
    other.client.destroy();
  });

  it('keeps the text of a failed write and writes it later; only flush() reports the failure', async () => {
    const bucket = `late-${Date.now()}`;
    const errors: unknown[] = [];
    const logs = store({ bucket, flushMs: 60_000, maxFlushMs: 60_000, flushBytes: 8, onError: (e) => errors.push(e) });
    const ref = execLog(exec(), 'stdout', false);
    await logs.append(ref, 'kept\n');
    await expect(logs.flush()).rejects.toThrow(/bucket/i);
    await logs.append(ref, 'then more\n'); // past flushBytes: written at once, which fails again
    expect(errors).toHaveLength(1);
    await minio.createBucket(bucket);
    await logs.close();
    expect((await logs.page(ref, {}))?.content).toBe('kept\nthen more');
    await expect(logs.append(ref, 'late\n')).rejects.toThrow(/after close/);
  });
});
