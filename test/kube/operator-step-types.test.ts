/**
 * The step types that talk to the world, run by the operator on the test bed: each execution a step Pod
 * of the svc image running `svc run-step`, against real servers on loopback (the test bed's Pods are
 * processes of this machine): ssh (OpenSSH), redis, postgres, sqlite, mail (SMTP), and the run's mail
 * notification sent by the operator.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCluster } from './env.js';
import { entryCommands, finished, kubeServer, podsOf, start } from './servers.js';
import { startSshd, sshdSkipReason, type SshdServer } from '../helpers/sshd.js';
import { redisSkipReason, startRedis, type RedisNode } from '../helpers/redis.js';
import { postgresSkipReason, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { startSmtp, type SmtpTestServer } from '../helpers/smtp.js';
import { minioSkipReason, startMinio, type MinioServer } from '../helpers/minio.js';
import { readFileSync } from 'node:fs';

const missing = [sshdSkipReason(), redisSkipReason(), postgresSkipReason(), minioSkipReason()].filter((r): r is string => r !== undefined);
const describeServers = missing.length === 0 || process.env.CI === 'true' ? describeCluster : (name: string) => describe.skip(`${name} (skipped: ${missing.join('; ')})`, () => undefined);

describeServers('step types as svc run-step Pods', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  const dir = mkdtempSync(join(tmpdir(), 'svc-kube-steps-'));
  let sshd: SshdServer;
  let redis: RedisNode;
  let pg: PostgresServer;
  let smtp: SmtpTestServer;
  let minio: MinioServer;
  beforeAll(async () => {
    [sshd, redis, pg, smtp, minio] = await Promise.all([startSshd(), startRedis(), startPostgres(), startSmtp(), startMinio()]);
    writeFileSync(join(dir, 'pgpass'), `${pg.password}\n`);
    writeFileSync(join(dir, 's3key'), `${minio.credentials.secretAccessKey}\n`);
    await srv.start();
  }, 120_000);
  afterAll(async () => {
    await srv.stop();
    await Promise.all([sshd?.stop(), redis?.stop(), pg?.stop(), smtp?.stop(), minio?.stop()]);
  });

  test('ssh, redis, postgres, sqlite and mail steps pass outputs along; the operator mails the result', async () => {
    srv.dag('worldly', `
secrets:
  - { name: PGPASS, provider: file, key: ${join(dir, 'pgpass')} }
smtp: { host: 127.0.0.1, port: "${smtp.port}", username: ${smtp.username}, password: "${smtp.password}" }
redis: { host: 127.0.0.1, port: ${redis.port} }
mailOn: { success: true }
infoMail: { from: svc@example.com, to: ops@example.com, prefix: "[kube]" }
steps:
  - name: remote
    type: ssh
    config: { host: 127.0.0.1, port: "${sshd.port}", user: ${sshd.user}, key: ${sshd.keys.ed25519}, strictHostKey: false }
    command: echo remote-ok
    output: REMOTE
  - name: cache-set
    type: redis
    config: { command: SET, key: greeting, value: "\${REMOTE}" }
  - name: cache-get
    type: redis
    config: { command: GET, key: greeting, outputFormat: raw }
    output: CACHED
  - name: query
    type: postgres
    config: { dsn: "postgres://${pg.user}:\${PGPASS}@127.0.0.1:${pg.port}/${pg.database}?sslmode=disable", params: { word: "\${CACHED}" } }
    command: "select upper(:word) as shout, 40 + 2 as answer"
    output: ROW
  - name: local
    type: sqlite
    config: { dsn: "${join(dir, 'local.db')}" }
    script: |
      create table t (v text);
      insert into t values ('\${ROW.shout}');
      select v from t;
    output: LOCAL
  - name: notify
    type: mail
    config: { to: dev@example.com, from: svc@example.com, subject: "answer \${ROW.answer}", message: "cached \${CACHED}, local \${LOCAL}" }
`);
    const id = await start(srv, 'worldly');
    const run = await finished(srv, 'worldly', id, 180_000);
    const nodes = run.nodes as { step: { name: string }; error: string; output?: string }[];
    const node = (n: string) => nodes.find((x) => x.step.name === n)!;
    expect({ status: run.statusLabel, errors: nodes.map((n) => n.error).filter(Boolean) }).toEqual({ status: 'succeeded', errors: [] });
    expect(node('cache-get').output).toBe('remote-ok');
    expect(JSON.parse(node('query').output!)).toEqual({ shout: 'REMOTE-OK', answer: 42 });
    expect(JSON.parse(node('local').output!)).toEqual({ v: 'REMOTE-OK' });
    const mails = await smtp.waitFor(2, 30_000);
    const step = mails.find((m) => m.to.includes('dev@example.com'))!;
    expect(step).toMatchObject({ subject: 'answer 42' });
    expect(step.text).toContain('cached remote-ok, local {"v":"REMOTE-OK"}');
    expect(mails.find((m) => m.to.includes('ops@example.com'))!.subject).toBe('[kube] worldly (succeeded)');
    const pods = await podsOf(srv.server.namespace!);
    for (const name of ['remote', 'cache-get', 'query', 'local', 'notify']) {
      const pod = pods.find((p) => p.metadata.labels['svc.io/step'] === name)!;
      expect(entryCommands(pod)).toBe('[["svc","run-step"]]');
    }
    expect(JSON.stringify(pods)).not.toContain(pg.password);
  });

  test('the archive and s3 examples: files packed, listed, unpacked; uploaded, listed, downloaded, deleted', async () => {
    const example = (f: string) => readFileSync(join('examples', 'steps', f), 'utf8');
    srv.dag('archive', example('archive.yaml'));
    const a = await start(srv, 'archive', { params: `WORK=${join(dir, 'archive')}` });
    const ar = await finished(srv, 'archive-example', a, 180_000);
    expect({ status: ar.statusLabel, errors: (ar.nodes as { error: string }[]).map((n) => n.error).filter(Boolean) }).toEqual({ status: 'succeeded', errors: [] });
    expect(readFileSync(join(dir, 'archive', 'restored', '2024', 'summary.txt'), 'utf8')).toBe('total: 42\n');
    // The example's keys come from the server's environment; the operator's secrets come from files here.
    await minio.createBucket('kube-example');
    srv.dag('s3', example('s3.yaml')
      .replace(/provider: env\n    key: SVC_S3_ACCESS_KEY/, `provider: file\n    key: ${join(dir, 's3id')}`)
      .replace(/provider: env\n    key: SVC_S3_SECRET_KEY/, `provider: file\n    key: ${join(dir, 's3key')}`));
    writeFileSync(join(dir, 's3id'), `${minio.credentials.accessKeyId}\n`);
    const b = await start(srv, 's3', { params: `ENDPOINT=${minio.endpoint} BUCKET=kube-example WORK=${join(dir, 's3')}` });
    const br = await finished(srv, 's3-example', b, 180_000);
    const nodes = br.nodes as { step: { name: string }; error: string }[];
    expect({ status: br.statusLabel, errors: nodes.map((n) => n.error).filter(Boolean) }).toEqual({ status: 'succeeded', errors: [] });
    expect(readFileSync(join(dir, 's3', 'copy.txt'), 'utf8')).toBe('total: 42\n');
  });
});
