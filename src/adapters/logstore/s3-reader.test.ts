/**
 * The S3 reader's byte source over fake chunks (the MinIO suite runs the whole store): pages equal the
 * in-memory ones whatever the chunking, and a huge chunk is read by ranges, never whole.
 */
import type { LogQuery } from '../../core/ports/log-store.js';
import { bufferSource, pageOf } from './pager.js';
import type { ObjectEntry, S3Objects } from './s3-objects.js';
import { S3LogReader } from './s3-reader.js';

class FakeObjects {
  readonly bodies = new Map<string, Buffer>();
  /** The size of every body a GET answered. */
  readonly served: number[] = [];

  async list(prefix: string): Promise<ObjectEntry[]> {
    return [...this.bodies].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, b]) => ({ key, size: b.length }));
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
    const body = this.bodies.get(key);
    const out = body && range ? body.subarray(range.start, range.end) : body;
    if (out) this.served.push(out.length);
    return out;
  }
}

function chunked(objects: FakeObjects, text: string, sizes: number[]): void {
  const bytes = Buffer.from(text);
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = sizes[i % sizes.length] as number;
    objects.bodies.set(`log/${String(i).padStart(6, '0')}`, bytes.subarray(at, at + n));
    at += n;
  }
}

const queries: LogQuery[] = [{}, { head: 3 }, { tail: 2 }, { tail: 500 }, { offset: 40, limit: 7 }, { offset: 1000 }];

describe('S3LogReader source', () => {
  test.each([[[1]], [[7, 3]], [[4096]], [[100_000]]])('chunks of %j page as the text does', async (sizes) => {
    const lines = Array.from({ length: 300 }, (_, i) => `${i + 1} ${'é'.repeat(i % 13)}`);
    const text = `${lines.join('\n')}\npartial`;
    const objects = new FakeObjects();
    chunked(objects, text, sizes);
    const src = await new S3LogReader(objects as unknown as S3Objects, 1024 * 1024).source('log/');
    for (const q of queries) expect(await pageOf(src!, q)).toEqual(await pageOf(bufferSource(Buffer.from(text)), q));
  });

  test('a chunk of one huge append is read by ranges, within the budget', async () => {
    const objects = new FakeObjects();
    objects.bodies.set('log/000001', Buffer.from(`${'x'.repeat(40 * 1024 * 1024)}\nend\n`));
    const src = await new S3LogReader(objects as unknown as S3Objects, 1024 * 1024).source('log/');
    expect(await pageOf(src!, { tail: 1 })).toMatchObject({ content: 'end', totalLines: 2 });
    expect((await pageOf(src!, { head: 1 })).content.length).toBeLessThan(70 * 1024);
    expect(Math.max(...objects.served)).toBeLessThanOrEqual(1024 * 1024);
  });

  test('no chunk is no log', async () => {
    expect(await new S3LogReader(new FakeObjects() as unknown as S3Objects, 1).source('log/')).toBeUndefined();
  });
});
