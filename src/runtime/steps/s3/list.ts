/**
 * `list`: the objects under `prefix`, one JSON object a line: key, size, lastModified (ISO 8601), etag
 * (without quotes), storageClass. Recursive lists the whole tree under the prefix; otherwise one level,
 * as the reference does, with each "directory" below as {"key": "dir/", "size": 0, "prefix": true}.
 * At most maxKeys lines (default 1000), paging through the bucket as needed.
 */
import type { _Object } from '@aws-sdk/client-s3';
import type { S3Run } from './context.js';
import { listBucket } from './listing.js';

function line(o: _Object): Record<string, unknown> {
  return {
    key: o.Key, size: o.Size ?? 0, lastModified: o.LastModified?.toISOString() ?? null,
    etag: o.ETag?.replace(/^"|"$/g, '') ?? null, storageClass: o.StorageClass ?? null,
  };
}

export async function listObjects(r: S3Run): Promise<void> {
  const opts = { max: r.s.maxKeys, ...(r.s.recursive ? {} : { delimiter: '/' }) };
  for await (const item of listBucket(r, r.s.prefix ?? '', opts)) {
    const value = 'prefix' in item ? { key: item.prefix, size: 0, prefix: true } : line(item.object);
    r.io.out(`${JSON.stringify(value)}\n`);
  }
}
