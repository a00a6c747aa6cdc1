import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsLogPages } from './fs-pages.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-logpages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const reader = new FsLogPages(dir);
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('FsLogPageReader', () => {
  const ten = file('ten.log', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  const open = file('open.log', 'a\nb\nc');

  test.each([
    ['everything', ten, {}, { content: Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'), lineCount: 10, totalLines: 10, hasMore: false }],
    ['head', ten, { head: 3 }, { content: 'line 1\nline 2\nline 3', lineCount: 3, totalLines: 10, hasMore: true }],
    ['tail', ten, { tail: 2 }, { content: 'line 9\nline 10', lineCount: 2, totalLines: 10, hasMore: true }],
    ['tail larger than file', ten, { tail: 50 }, { lineCount: 10, totalLines: 10, hasMore: false }],
    ['offset and limit', ten, { offset: 4, limit: 2 }, { content: 'line 4\nline 5', lineCount: 2, totalLines: 10, hasMore: true }],
    ['offset to the end', ten, { offset: 9, limit: 5 }, { content: 'line 9\nline 10', lineCount: 2, hasMore: false }],
    ['offset past the end', ten, { offset: 20 }, { content: '', lineCount: 0, totalLines: 10, hasMore: false }],
    ['unterminated last line', open, {}, { content: 'a\nb\nc', lineCount: 3, totalLines: 3 }],
    ['unterminated tail', open, { tail: 1 }, { content: 'c', lineCount: 1, totalLines: 3, hasMore: true }],
    ['empty file', file('empty.log', ''), { tail: 5 }, { content: '', lineCount: 0, totalLines: 0, hasMore: false }],
    ['empty file head', file('empty2.log', ''), {}, { content: '', lineCount: 0, totalLines: 0 }],
    ['blank lines', file('blank.log', '\n\n\n'), {}, { content: '\n\n', lineCount: 3, totalLines: 3 }],
  ])('%s', async (_name, path, q, expected) => {
    const page = await reader.read(path, q);
    expect(page).toMatchObject({ isEstimate: false, ...expected });
  });

  test('missing file', async () => {
    expect(await reader.read(join(dir, 'nope.log'), {})).toBeUndefined();
  });

  test('lines across chunk boundaries and multi-byte characters', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `${i + 1} ${'é'.repeat(i % 40)}`);
    const p = file('big.log', lines.join('\n') + '\n');
    expect(await reader.read(p, { tail: 3 })).toMatchObject({ content: lines.slice(-3).join('\n'), totalLines: 5000 });
    expect(await reader.read(p, { offset: 2500, limit: 3 })).toMatchObject({ content: lines.slice(2499, 2502).join('\n'), totalLines: 5000, hasMore: true });
    expect((await reader.read(p, {}))!.lineCount).toBe(5000);
  });
});
