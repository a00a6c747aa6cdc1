/**
 * The s3 step type through the real embedded engine against a real S3-compatible server (MinIO on
 * loopback, test/helpers/minio.ts): upload and download of files and trees (multipart included), list
 * as JSON lines with paging, prefixes and maxKeys, delete by key and by prefix, the DAG-level s3 block
 * with a step override, credentials from secrets or the step's env, clear errors (wrong credentials,
 * missing bucket or key, unreachable or silent endpoint) in bounded time, masking, stop and timeout.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { plan } from '../../src/runtime/steps/s3/download.js';
import { s3Runner, type S3Options } from '../../src/runtime/steps/s3/index.js';
import { describeMinio, startMinio, type MinioServer } from '../helpers/minio.js';
import { runSteps, type StepsOptions } from '../helpers/steps.js';

const made: string[] = [];
function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  made.push(dir);
  return dir;
}
afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

describe('s3 download plan (keys MinIO itself refuses)', () => {
  test('keys land at their path below the prefix\'s last "/"; ".." is refused; "directory" markers write nothing', () => {
    expect(plan([{ key: 'logs/2024-01.txt' }, { key: 'logs/2024/' }, { key: 'logs/2024/x/./y.txt' }], 'logs/'.length)).toEqual([
      { key: 'logs/2024-01.txt', segments: ['2024-01.txt'] },
      { key: 'logs/2024/x/./y.txt', segments: ['2024', 'x', 'y.txt'] },
    ]);
    expect(() => plan([{ key: 'logs/ok.txt' }, { key: 'logs/a/../../evil.txt' }], 5))
      .toThrow('s3 step: object key "logs/a/../../evil.txt" would be written outside the destination (it has a ".." segment): refused');
  });
});

describeMinio('s3 steps against MinIO', () => {
  let minio: MinioServer;
  let client: S3Client;
  let n = 0;
  /** A fresh bucket per test, so tests never see each other's objects. */
  async function bucket(): Promise<string> {
    const name = `svc-test-${process.pid}-${n++}`;
    await minio.createBucket(name);
    return name;
  }
  beforeAll(async () => {
    minio = await startMinio();
    client = minio.client();
  });
  afterAll(async () => {
    client?.destroy();
    await minio?.stop();
  });

  const SECRET_ENV = 'SVC_TEST_S3_SECRET';
  /** The DAG-level s3 block for the server: the secret access key from a secret. */
  const head = (b: string, extra = ''): string => `type: graph
secrets:
  - name: S3_SECRET
    provider: env
    key: ${SECRET_ENV}
s3:
  endpoint: ${minio.endpoint}
  region: us-east-1
  forcePathStyle: true
  accessKeyId: ${minio.credentials.accessKeyId}
  secretAccessKey: \${S3_SECRET}
  bucket: ${b}
${extra}steps:
`;
  const step = (name: string, command: string, config: Record<string, unknown>, more = ''): string =>
    `  - name: ${name}\n    type: s3\n    command: ${command}\n    config: ${JSON.stringify(config)}\n${more}`;
  function run(yaml: string, o: Partial<S3Options> = {}, opts: StepsOptions = {}) {
    return runSteps(yaml, { runners: { s3: s3Runner(o) }, ...opts, env: { [SECRET_ENV]: minio.credentials.secretAccessKey, ...opts.env } });
  }
  const get = async (b: string, key: string): Promise<string> =>
    (await client.send(new GetObjectCommand({ Bucket: b, Key: key }))).Body!.transformToString();
  const keys = async (b: string): Promise<string[]> =>
    ((await client.send(new ListObjectsV2Command({ Bucket: b }))).Contents ?? []).map((o) => o.Key!);
  async function put(b: string, ...names: string[]): Promise<void> {
    for (const k of names) await client.send(new PutObjectCommand({ Bucket: b, Key: k, Body: `body of ${k}` }));
  }
  const json = async (r: Awaited<ReturnType<typeof runSteps>>, name: string): Promise<Record<string, unknown>> => JSON.parse(await r.log(name)) as Record<string, unknown>;

  test('upload a file and download it back; the content type is guessed; a directory destination takes the key\'s name', async () => {
    const b = await bucket();
    const w = tmp();
    writeFileSync(join(w, 'report.json'), '{"total": 42}\n');
    mkdirSync(join(w, 'into'));
    const r = await run(`${head(b)}${step('up', 'upload', { source: `${w}/report.json`, key: 'reports/r.json', storageClass: 'reduced_redundancy' })}${
      step('down', 'download', { key: 'reports/r.json', destination: `${w}/copy/r.json` }, '    depends: up\n')}${
      step('into', 'download', { key: 'reports/r.json', destination: `${w}/into` }, '    depends: up\n')}`);
    expect(r.status).toBe('succeeded');
    expect(await json(r, 'up')).toMatchObject({
      operation: 'upload', success: true, bucket: b, key: 'reports/r.json', uri: `s3://${b}/reports/r.json`, size: 14,
      contentType: 'application/json', storageClass: 'REDUCED_REDUNDANCY',
    });
    expect((await json(r, 'up')).etag).toMatch(/^[0-9a-f]{32}$/);
    const meta = await client.send(new HeadObjectCommand({ Bucket: b, Key: 'reports/r.json' }));
    expect(meta.ContentType).toBe('application/json');
    expect(await json(r, 'down')).toMatchObject({ operation: 'download', key: 'reports/r.json', destination: `${w}/copy/r.json`, size: 14, contentType: 'application/json' });
    expect(readFileSync(join(w, 'copy', 'r.json'), 'utf8')).toBe('{"total": 42}\n');
    expect(readFileSync(join(w, 'into', 'r.json'), 'utf8')).toBe('{"total": 42}\n');
    expect(readdirSync(join(w, 'copy'))).toEqual(['r.json']);
  });

  test('upload and download a directory tree; contentType applies to every file', async () => {
    const b = await bucket();
    const w = tmp();
    mkdirSync(join(w, 'site', 'css', 'deep'), { recursive: true });
    writeFileSync(join(w, 'site', 'index.html'), '<p>hi</p>');
    writeFileSync(join(w, 'site', 'css', 'a.css'), 'p{}');
    writeFileSync(join(w, 'site', 'css', 'deep', 'b.txt'), 'deep');
    symlinkSync('index.html', join(w, 'site', 'home.html'));
    const r = await run(`${head(b)}${step('up', 'upload', { source: 'site', key: 'www', recursive: true }, `    dir: ${w}\n`)}${
      step('plain', 'upload', { source: `${w}/site`, prefix: 'plain/', recursive: true, contentType: 'text/plain' })}${
      step('down', 'download', { key: 'www', recursive: true, destination: `${w}/back` }, '    depends: up\n')}${
      step('sub', 'download', { prefix: 'www/css/', destination: `${w}/css` }, '    depends: up\n')}`);
    expect(r.status).toBe('succeeded');
    expect(await json(r, 'up')).toMatchObject({
      operation: 'upload', prefix: 'www/', uploadedCount: 4, size: 9 + 9 + 3 + 4,
      uploadedKeys: ['www/css/a.css', 'www/css/deep/b.txt', 'www/home.html', 'www/index.html'],
    });
    expect((await keys(b)).sort()).toEqual([
      'plain/css/a.css', 'plain/css/deep/b.txt', 'plain/home.html', 'plain/index.html',
      'www/css/a.css', 'www/css/deep/b.txt', 'www/home.html', 'www/index.html',
    ]);
    expect((await client.send(new HeadObjectCommand({ Bucket: b, Key: 'www/css/a.css' }))).ContentType).toMatch(/^text\/css/);
    expect((await client.send(new HeadObjectCommand({ Bucket: b, Key: 'plain/css/a.css' }))).ContentType).toBe('text/plain');
    expect(await json(r, 'down')).toMatchObject({ operation: 'download', prefix: 'www/', downloadedCount: 4, size: 25 });
    expect((readdirSync(join(w, 'back'), { recursive: true }) as string[]).sort()).toEqual(['css', 'css/a.css', 'css/deep', 'css/deep/b.txt', 'home.html', 'index.html']);
    expect(readFileSync(join(w, 'back', 'css', 'deep', 'b.txt'), 'utf8')).toBe('deep');
    expect((readdirSync(join(w, 'css'), { recursive: true }) as string[]).sort()).toEqual(['a.css', 'deep', 'deep/b.txt']);
  });

  test('a large file goes up as a multipart upload and comes back whole', async () => {
    const b = await bucket();
    const w = tmp();
    const data = randomBytes(12 << 20);
    writeFileSync(join(w, 'big.bin'), data);
    const r = await run(`${head(b)}${step('up', 'upload', { source: `${w}/big.bin`, key: 'big.bin' })}${
      step('down', 'download', { key: 'big.bin', destination: `${w}/back.bin` }, '    depends: up\n')}`, { multipartMin: 5 << 20 });
    expect(r.status).toBe('succeeded');
    expect(await json(r, 'up')).toMatchObject({ size: 12 << 20, contentType: 'application/octet-stream' });
    expect((await json(r, 'up')).etag).toMatch(/-3$/);
    const sha = (buf: Buffer): string => createHash('sha256').update(buf).digest('hex');
    expect(sha(readFileSync(join(w, 'back.bin')))).toBe(sha(data));
  });

  test('list prints JSON lines, one level or recursive, pages through the bucket and stops at maxKeys', async () => {
    const b = await bucket();
    await put(b, ...Array.from({ length: 12 }, (_, i) => `logs/day-${String(i).padStart(2, '0')}.log`), 'logs/old/x.log', 'top.txt');
    const r = await run(`${head(b)}${step('level', 'list', { prefix: 'logs/' })}${step('all', 'list', { recursive: true, maxKeys: 9 })}${
      step('deep', 'list', { prefix: 'logs/old/', recursive: true })}${step('root', 'list', {})}`, { pageSize: 5 });
    expect(r.status).toBe('succeeded');
    const lines = async (name: string) => (await r.log(name)).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const level = await lines('level');
    expect(level.map((o) => o.key)).toEqual([...Array.from({ length: 12 }, (_, i) => `logs/day-${String(i).padStart(2, '0')}.log`), 'logs/old/']);
    expect(level[0]).toEqual({
      key: 'logs/day-00.log', size: 23, lastModified: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/), etag: expect.stringMatching(/^[0-9a-f]{32}$/), storageClass: 'STANDARD',
    });
    expect(level[12]).toEqual({ key: 'logs/old/', size: 0, prefix: true });
    expect((await lines('all')).map((o) => o.key)).toEqual(Array.from({ length: 9 }, (_, i) => `logs/day-${String(i).padStart(2, '0')}.log`));
    expect((await lines('deep')).map((o) => o.key)).toEqual(['logs/old/x.log']);
    expect((await lines('root')).map((o) => o.key)).toEqual(['logs/', 'top.txt']);
  });

  test('delete by key and by prefix (several batches of listing)', async () => {
    const b = await bucket();
    await put(b, 'keep.txt', 'tmp/a', 'tmp/b', 'tmp/c/d', 'tmpfile', 'dir/x', 'dir/y');
    const r = await run(`${head(b)}${step('one', 'delete', { key: 'keep.txt' })}${step('tree', 'delete', { prefix: 'tmp/' })}${
      step('folder', 'delete', { key: 'dir', recursive: true })}${step('none', 'delete', { prefix: 'nothing/' })}`, { pageSize: 2 });
    expect(r.status).toBe('succeeded');
    expect(await json(r, 'one')).toMatchObject({ operation: 'delete', success: true, bucket: b, key: 'keep.txt', deletedCount: 1, deletedKeys: ['keep.txt'] });
    expect(await json(r, 'tree')).toMatchObject({ operation: 'delete', success: true, prefix: 'tmp/', deletedCount: 3, deletedKeys: ['tmp/a', 'tmp/b', 'tmp/c/d'] });
    expect(await json(r, 'folder')).toMatchObject({ prefix: 'dir/', deletedCount: 2 });
    expect(await json(r, 'none')).toMatchObject({ deletedCount: 0, deletedKeys: [] });
    expect(await keys(b)).toEqual(['tmpfile']);
  });

  test('the DAG-level block is inherited; a step overrides a field of it; credentials may come from the step env', async () => {
    const a = await bucket();
    const other = await bucket();
    await put(a, 'in-a.txt');
    await put(other, 'in-other.txt');
    const r = await run(`type: graph
env:
  - AWS_ACCESS_KEY_ID: ${minio.credentials.accessKeyId}
  - AWS_SECRET_ACCESS_KEY: \${${SECRET_ENV}}
s3:
  endpoint: ${minio.endpoint}
  forcePathStyle: true
  bucket: ${a}
steps:
${step('dag', 'list', {})}${step('own', 'list', { bucket: other })}`);
    expect(r.status).toBe('succeeded');
    expect(JSON.parse(await r.log('dag'))).toMatchObject({ key: 'in-a.txt' });
    expect(JSON.parse(await r.log('own'))).toMatchObject({ key: 'in-other.txt' });
  });

  test('wrong credentials, a missing bucket or key, a missing source: clear errors; secrets never shown', async () => {
    const b = await bucket();
    const w = tmp();
    mkdirSync(join(w, 'dir'));
    const literal = 'literal-wrong-secret-123';
    const denied = await run(`${head(b)}${step('badsecret', 'list', {})}${step('literal', 'list', { secretAccessKey: literal })}${
      step('badid', 'list', { accessKeyId: 'nobody' })}`, {}, { env: { [SECRET_ENV]: 'wrong-secret-value-456' } });
    expect(denied.node('badsecret').error).toBe(`s3 step: list s3://${b}/: access denied: the request signature does not match (check secretAccessKey)`);
    expect(denied.node('literal').error).toBe(denied.node('badsecret').error);
    expect(denied.node('badid').error).toBe(`s3 step: list s3://${b}/: access denied: the server does not know this access key id (check accessKeyId)`);
    const r = await run(`${head(b)}${step('nobucket', 'list', { bucket: 'no-such-bucket-here' })}${
      step('nokey', 'download', { key: 'missing.txt', destination: `${w}/m.txt` })}${
      step('nosource', 'upload', { source: `${w}/nope.txt`, key: 'x' })}${step('dir', 'upload', { source: `${w}/dir`, key: 'x' })}${
      step('verb', '${VERB}', {}, '    env:\n      - VERB: copy\n')}`);
    expect(r.node('nobucket').error).toBe('s3 step: list s3://no-such-bucket-here/: no such bucket');
    expect(r.node('nokey').error).toBe(`s3 step: download s3://${b}/missing.txt: no such key`);
    expect(readdirSync(w)).toEqual(['dir']);
    expect(r.node('nosource').error).toBe(`s3 step: source ${w}/nope.txt does not exist`);
    expect(r.node('dir').error).toBe(`s3 step: source ${w}/dir is a directory: set recursive: true to upload the tree under it`);
    // (Written literally, a bad command is refused when the DAG loads: step-configs/s3.ts.)
    expect(r.node('verb').error).toBe('s3 step: command must be one of upload, download, list, delete (got "copy")');
    // A secret never reaches the run record or the logs; a key written in the DAG file itself is part of the
    // stored definition, but never of what the steps write.
    const logs = (await Promise.all(['badsecret', 'literal', 'badid'].flatMap((s) => [denied.log(s), denied.log(s, 'stderr')]))).join('');
    expect(JSON.stringify(denied.run) + logs).not.toContain('wrong-secret-value-456');
    expect(JSON.stringify(denied.run.status) + logs).not.toContain(literal);
  });

  describe('unreachable and silent endpoints', () => {
    let silent: Server;
    let silentUrl = '';
    const sockets: Socket[] = [];
    beforeAll(async () => {
      silent = createServer((s) => { sockets.push(s); });
      await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
      silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    });
    afterAll(() => { for (const s of sockets) s.destroy(); silent.close(); });

    const at = (endpoint: string, b = 'any-bucket'): string => `type: graph\ns3:\n  endpoint: ${endpoint}\n  forcePathStyle: true\n  accessKeyId: some-key\n  secretAccessKey: some-secret-value\n  bucket: ${b}\nsteps:\n`;

    test('a refused connection fails after the bounded retries, quickly', async () => {
      const t = Date.now();
      const r = await run(`${at('http://127.0.0.1:1')}${step('ls', 'list', {})}`);
      expect(r.node('ls').error).toMatch(/^s3 step: list s3:\/\/any-bucket\/: cannot reach http:\/\/127\.0\.0\.1:1 after 3 attempts: .*ECONNREFUSED/);
      expect(Date.now() - t).toBeLessThan(10_000);
    });

    test('a server that never answers fails once the idle limit passes on every attempt', async () => {
      const t = Date.now();
      const r = await run(`${at(silentUrl)}${step('ls', 'list', {})}`, { limits: { connectMs: 1000, idleMs: 500, attempts: 2 } });
      expect(r.node('ls').error).toBe(`s3 step: list s3://any-bucket/: cannot reach ${silentUrl} after 2 attempts: no answer in time (connection or socket timed out)`);
      expect(Date.now() - t).toBeLessThan(10_000);
    });

    test('the step timeout aborts a hanging request at once; nothing is left behind', async () => {
      const w = tmp();
      const t = Date.now();
      const r = await run(`${at(silentUrl)}${step('down', 'download', { key: 'k', destination: `${w}/f` }, '    timeoutSec: 1\n')}`);
      expect(r.node('down').error).toContain('timed out after 1s');
      expect(Date.now() - t).toBeLessThan(5_000);
      expect(readdirSync(w)).toEqual([]);
    });
  });

  /** A TCP proxy to MinIO passing what the client sends at about `bytesPerSec`: an upload takes a while. */
  async function slowProxy(bytesPerSec: number): Promise<{ url: string; passed(): number; close(): void }> {
    const port = Number(new URL(minio.endpoint).port);
    const conns: Socket[] = [];
    let passed = 0;
    const srv = createServer((c) => {
      const up = connect(port, '127.0.0.1');
      conns.push(c, up);
      c.on('data', (chunk: Buffer) => {
        passed += chunk.length;
        up.write(chunk);
        c.pause();
        setTimeout(() => c.resume(), (chunk.length / bytesPerSec) * 1000);
      });
      up.pipe(c);
      for (const [a, b] of [[c, up], [up, c]] as const) {
        a.on('error', () => b.destroy());
        a.on('close', () => b.destroy());
      }
    });
    await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
    return {
      url: `http://127.0.0.1:${(srv.address() as { port: number }).port}`,
      passed: () => passed,
      close: () => { for (const c of conns) c.destroy(); srv.close(); },
    };
  }

  test('the step timeout stops a multipart upload midway, and the upload is aborted on the server', async () => {
    const b = await bucket();
    const w = tmp();
    writeFileSync(join(w, 'big.bin'), randomBytes(12 << 20));
    const proxy = await slowProxy(2 << 20);
    try {
      const t = Date.now();
      const r = await run(`${head(b)}${step('up', 'upload', { source: `${w}/big.bin`, key: 'big.bin', endpoint: proxy.url }, '    timeoutSec: 1\n')}`, { multipartMin: 5 << 20 });
      expect(r.node('up').error).toContain('timed out after 1s');
      expect(Date.now() - t).toBeLessThan(5_000);
      expect(proxy.passed()).toBeGreaterThan(1 << 20);
      expect(proxy.passed()).toBeLessThan(5 << 20);
      const { ListMultipartUploadsCommand } = await import('@aws-sdk/client-s3');
      const pending = async (): Promise<number> => ((await client.send(new ListMultipartUploadsCommand({ Bucket: b }))).Uploads ?? []).length;
      for (let i = 0; i < 50 && await pending() > 0; i++) await new Promise((res) => setTimeout(res, 100));
      expect(await pending()).toBe(0);
      expect(await keys(b)).toEqual([]);
    } finally {
      proxy.close();
    }
  });

  test('examples/steps/s3.yaml runs', async () => {
    const b = await bucket();
    const w = tmp();
    const r = await runSteps(readFileSync('examples/steps/s3.yaml', 'utf8'), {
      runners: { s3: s3Runner() },
      params: `ENDPOINT=${minio.endpoint} BUCKET=${b} WORK=${w}`,
      env: { SVC_S3_ACCESS_KEY: minio.credentials.accessKeyId, SVC_S3_SECRET_KEY: minio.credentials.secretAccessKey },
    });
    expect(r.status).toBe('succeeded');
    expect(await r.log('show')).toContain('total: 42');
    expect(existsSync(join(w, 'copy.txt'))).toBe(true);
    expect(await keys(b)).toEqual([]);
    expect(await get(b, 'x').catch((e: Error) => e.name)).toBe('NoSuchKey');
  });
});
