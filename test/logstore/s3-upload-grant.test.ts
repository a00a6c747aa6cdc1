/** Upload grants on a real S3-compatible server: writes under the prefix pass, anything else is refused. */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { UploadGrants, type UploadGrant } from '../../src/adapters/logstore/s3-upload-grant.js';
import { describeMinio, startMinio, type MinioServer } from '../helpers/minio.js';

const BUCKET = 'svc-grants';

/** The form a step Pod's entry sends: the grant's fields, the key, the file last. */
async function post(g: UploadGrant, key: string, body: string): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(g.fields)) form.append(k, v);
  form.append('key', key);
  form.append('file', new Blob([body]), 'chunk');
  const res = await fetch(g.url, { method: 'POST', body: form });
  return { status: res.status, text: await res.text() };
}

describeMinio('upload grants on MinIO', () => {
  let minio: MinioServer;
  let client: S3Client;
  let grants: UploadGrants;
  beforeAll(async () => {
    minio = await startMinio();
    await minio.createBucket(BUCKET);
    client = minio.client();
    grants = new UploadGrants({ client, bucket: BUCKET, region: 'us-east-1', url: `${minio.endpoint}/${BUCKET}` });
  });
  afterAll(async () => {
    client?.destroy();
    await minio?.stop();
  });
  const read = async (key: string) => (await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body?.transformToString());

  test('a key under the prefix is written; one outside it is refused', async () => {
    const g = await grants.grant('runs/a/logs/step-1.', 60);
    expect(JSON.stringify(g)).not.toContain(String((await client.config.credentials()).secretAccessKey));
    expect(await post(g, 'runs/a/logs/step-1.out/0001', 'hello\n')).toMatchObject({ status: 204 });
    expect(await read('runs/a/logs/step-1.out/0001')).toBe('hello\n');
    const outside = await post(g, 'runs/a/logs/step-2.out/0001', 'not mine');
    expect(outside.status).toBe(403);
    expect(outside.text).toMatch(/AccessDenied|Policy/);
    const tampered = { ...g, fields: { ...g.fields, policy: Buffer.from(JSON.stringify({ expiration: '2099-01-01T00:00:00Z', conditions: [{ bucket: BUCKET }] })).toString('base64') } };
    expect((await post(tampered, 'anything', 'x')).status).toBe(403);
  });

  test('an expired grant is refused', async () => {
    const old = new UploadGrants({ client, bucket: BUCKET, region: 'us-east-1', url: `${minio.endpoint}/${BUCKET}`, now: () => Date.now() - 120_000 });
    const g = await old.grant('runs/b/', 60);
    const r = await post(g, 'runs/b/x', 'late');
    expect(r.status).toBe(403);
  });
});
