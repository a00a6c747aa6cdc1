/** The pager's budgets over bytes held whole: cuts, page ends, and paging on after a short page. */
import { LINE_CUT, LINE_START_CUT, MAX_LINE_BYTES, MAX_PAGE_BYTES, bufferSource, pageOf } from './pager.js';

const src = (text: string | Buffer) => bufferSource(Buffer.isBuffer(text) ? text : Buffer.from(text));

describe('pager budgets', () => {
  test('a long line of multi-byte characters is cut at a character boundary', async () => {
    const line = `a${'é'.repeat(MAX_LINE_BYTES)}`; // the cut falls inside a two-byte character
    const p = await pageOf(src(`${line}\nnext\n`), { head: 1 });
    expect(p.content.endsWith(LINE_CUT)).toBe(true);
    const kept = p.content.slice(0, -LINE_CUT.length);
    expect(kept).not.toContain('\ufffd');
    expect(Buffer.byteLength(kept)).toBe(MAX_LINE_BYTES - 1);
    expect(line.startsWith(kept)).toBe(true);
  });

  test('paging on by lineCount after pages ended by the budget reads every line once', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `${i}:${'y'.repeat(50_000)}`);
    const text = `${lines.join('\n')}\n`;
    const seen: string[] = [];
    for (let offset = 1; ;) {
      const p = await pageOf(src(text), { offset });
      expect(Buffer.byteLength(p.content)).toBeLessThanOrEqual(MAX_PAGE_BYTES);
      seen.push(...p.content.split('\n'));
      offset += p.lineCount;
      if (!p.hasMore) break;
    }
    expect(seen).toEqual(lines);
    const tail = await pageOf(src(text), { tail: 120 });
    expect(tail).toMatchObject({ hasMore: true, totalLines: 120 });
    expect(tail.content.split('\n')).toEqual(lines.slice(120 - tail.lineCount));
  });

  test('a tail whose line starts beyond the scan is marked and estimated', async () => {
    const big = Buffer.alloc(65 * 1024 * 1024 + 10, 'x');
    const p = await pageOf(src(Buffer.concat([big, Buffer.from('\nend\n')])), { tail: 2 });
    expect(p.lineCount).toBe(2);
    expect(p.content.startsWith(LINE_START_CUT)).toBe(true);
    expect(p.content.endsWith('\nend')).toBe(true);
    expect(p.isEstimate).toBe(true);
    expect(Buffer.byteLength(p.content)).toBeLessThan(MAX_LINE_BYTES + 100);
    const head = await pageOf(src(big), { head: 1 });
    expect(head).toMatchObject({ lineCount: 1, hasMore: true, isEstimate: true });
    expect(head.content.endsWith(LINE_CUT)).toBe(true);
  });
});
