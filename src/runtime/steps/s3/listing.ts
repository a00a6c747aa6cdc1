/**
 * Pages through a bucket listing (ListObjectsV2, up to 1000 keys a page: S3's most) until `max` items or the end.
 * With a delimiter the "directories" one level down come as prefixes, as `aws s3 ls` shows them.
 */
import { ListObjectsV2Command, type _Object } from '@aws-sdk/client-s3';
import { call, type S3Run } from './context.js';
import { uri } from './errors.js';

export type Listed = { object: _Object } | { prefix: string };

const nameOf = (l: Listed): string => ('prefix' in l ? l.prefix : (l.object.Key ?? ''));

export async function* listBucket(r: S3Run, prefix: string, opts: { delimiter?: string; max: number }): AsyncGenerator<Listed> {
  let token: string | undefined;
  let left = opts.max;
  do {
    const page = await call(r, `list ${uri(r.s.bucket, prefix)}`, (o) => r.client.send(new ListObjectsV2Command({
      Bucket: r.s.bucket, Prefix: prefix || undefined, Delimiter: opts.delimiter, MaxKeys: Math.min(r.pageSize, left), ContinuationToken: token,
    }), o));
    const items: Listed[] = [
      ...(page.Contents ?? []).map((object) => ({ object })),
      ...(page.CommonPrefixes ?? []).map((p) => ({ prefix: p.Prefix ?? '' })),
    ].sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
    for (const item of items.slice(0, left)) yield item;
    left -= Math.min(items.length, left);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token && left > 0);
}

/** Every object key under a prefix (no delimiter: the whole tree). */
export async function keysUnder(r: S3Run, prefix: string): Promise<{ key: string; size: number }[]> {
  const out: { key: string; size: number }[] = [];
  for await (const item of listBucket(r, prefix, { max: Number.POSITIVE_INFINITY })) {
    if ('object' in item && item.object.Key !== undefined) out.push({ key: item.object.Key, size: item.object.Size ?? 0 });
  }
  return out;
}
