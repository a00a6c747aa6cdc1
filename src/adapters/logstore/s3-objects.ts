/** The few S3 calls the log store makes, over one bucket: put, get (undefined when absent; whole or a range), list a prefix, delete. */
import { DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

export interface ObjectEntry {
  key: string;
  size: number;
}

const isNotFound = (e: unknown): boolean => {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404;
};

export class S3Objects {
  constructor(private readonly client: S3Client, readonly bucket: string) {}

  async put(key: string, body: string, contentType: string): Promise<void> {
    const bytes = Buffer.from(body, 'utf8');
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length, ContentType: contentType }));
  }

  /** The object, or the bytes [start, end) of it when a range is given. */
  async get(key: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
    try {
      const Range = range === undefined ? undefined : `bytes=${range.start}-${range.end - 1}`;
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(Range ? { Range } : {}) }));
      return Buffer.from((await res.Body?.transformToByteArray()) ?? []);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Every object under the prefix, in key order (S3 lists keys in UTF-8 byte order), all pages. */
  async list(prefix: string): Promise<ObjectEntry[]> {
    const out: ObjectEntry[] = [];
    let token: string | undefined;
    do {
      const res = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of res.Contents ?? []) if (o.Key !== undefined) out.push({ key: o.Key, size: o.Size ?? 0 });
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token !== undefined);
    return out;
  }

  /** Deletes every object under the prefix (1,000 keys a request). */
  async deleteAll(prefix: string): Promise<void> {
    const keys = (await this.list(prefix)).map((o) => ({ Key: o.key }));
    for (let i = 0; i < keys.length; i += 1000) {
      await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.slice(i, i + 1000), Quiet: true } }));
    }
  }
}
