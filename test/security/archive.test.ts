/**
 * Archive extraction cannot be led outside its destination by any sequence of entries, through the
 * public interface: a DAG with an `archive` step run over REST on the embedded server, archives built
 * here (tar by hand, zip with yazl), with and without overwrite: links planted by the archive or already
 * in the destination are never written through, a link replaced between entries is seen, a link where a
 * directory entry goes is replaced (with overwrite), and the decompression budget holds.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Header } from 'tar';
import yazl from 'yazl';
import { eventually, TestServer } from '../helpers/server.js';

interface Entry { path: string; type?: 'File' | 'SymbolicLink' | 'Directory'; body?: string; linkpath?: string }

function tarOf(entries: Entry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const block = Buffer.alloc(512);
    new Header({ path: e.path, type: e.type ?? 'File', size: body.length, mode: e.type === 'Directory' ? 0o755 : 0o644, mtime: new Date(), ...(e.linkpath ? { linkpath: e.linkpath } : {}) }).encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

async function zipOf(entries: Entry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    if (e.type === 'Directory') zip.addEmptyDirectory(e.path);
    else if (e.type === 'SymbolicLink') zip.addBuffer(Buffer.from(e.linkpath ?? ''), e.path, { mode: 0o120777 });
    else zip.addBuffer(Buffer.from(e.body ?? ''), e.path);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const srv = new TestServer();
beforeAll(() => srv.start());
afterAll(() => srv.stop());

/** A work directory: `box/dest` is the destination, `box` is what must stay untouched. */
function work(): { w: string; box: string; dest: string } {
  const w = mkdtempSync(join(tmpdir(), 'svc-sec-archive-'));
  mkdirSync(join(w, 'box', 'dest'), { recursive: true });
  return { w, box: join(w, 'box'), dest: join(w, 'box', 'dest') };
}

let n = 0;
/** Runs one archive extract step as a DAG over REST; the finished node. */
async function extract(archive: string, dest: string, config: Record<string, unknown> = {}): Promise<{ status: string; error: string }> {
  const name = `extract-${++n}`;
  const cfg = JSON.stringify({ source: archive, destination: dest, ...config });
  srv.dag(name, `steps:\n  - name: x\n    type: archive\n    command: extract\n    config: ${cfg}\n`);
  const start = await srv.post(`/dags/${name}/start`, {});
  expect(start.status).toBe(200);
  const run = await eventually(async () => {
    const r = await srv.get(`/dag-runs/${name}/${start.body.dagRunId}`);
    return ['succeeded', 'failed'].includes(r.body?.dagRun?.statusLabel) ? r.body.dagRun : undefined;
  }, `${name} to finish`, 60_000);
  const node = run.nodes.find((x: { step: { name: string } }) => x.step.name === 'x');
  return { status: node.statusLabel, error: node.error ?? '' };
}

/** Links planted and then re-pointed by the archive itself: `a -> d/..` is inside while `d -> sub`, outside once `d -> .`. */
const REPOINTED: Entry[] = [
  { path: 'sub/', type: 'Directory' },
  { path: 'd', type: 'SymbolicLink', linkpath: 'sub' },
  { path: 'a', type: 'SymbolicLink', linkpath: 'd/..' },
  { path: 'a/first.txt', body: 'through a link' },
  { path: 'd', type: 'SymbolicLink', linkpath: '.' },
  { path: 'a/escaped.txt', body: 'pwned' },
];

describe.each([
  ['tar', (e: Entry[]) => Promise.resolve(tarOf(e))],
  ['zip', zipOf],
])('%s archives', (ext, build) => {
  test('a link re-pointed between entries (overwrite: true) is not written through', async () => {
    const { w, box, dest } = work();
    writeFileSync(join(w, `evil.${ext}`), await build(REPOINTED));
    const r = await extract(join(w, `evil.${ext}`), dest, { overwrite: true });
    expect(r.status).toBe('failed');
    expect(r.error).toBe('archive step: cannot extract "a/first.txt": "a" on its path is a symlink (extraction never writes through a link)');
    expect(readdirSync(box)).toEqual(['dest']);
    expect(existsSync(join(w, 'escaped.txt'))).toBe(false);
  });

  test('links already in the destination are not followed; without overwrite nothing is replaced', async () => {
    const { w, box, dest } = work();
    const away = join(w, 'away');
    mkdirSync(away);
    mkdirSync(join(dest, 'sub'));
    symlinkSync('sub', join(dest, 'd'));
    symlinkSync('d/..', join(dest, 'a'));
    symlinkSync(away, join(dest, 'out'));
    writeFileSync(join(w, `a.${ext}`), await build([{ path: 'a/escaped.txt', body: 'pwned' }]));
    writeFileSync(join(w, `b.${ext}`), await build([{ path: 'out/x.txt', body: 'pwned' }]));
    writeFileSync(join(w, `c.${ext}`), await build([{ path: 'd', type: 'SymbolicLink', linkpath: '.' }, { path: 'a/escaped.txt', body: 'pwned' }]));
    for (const [archive, overwrite] of [['a', false], ['b', true], ['c', true]] as const) {
      const r = await extract(join(w, `${archive}.${ext}`), dest, { overwrite });
      expect(r.status).toBe('failed');
      expect(r.error).toMatch(/^archive step: cannot extract "(a\/escaped|out\/x)\.txt": "(a|out)" on its path is a symlink \(extraction never writes through a link\)$/);
    }
    expect(readdirSync(away)).toEqual([]);
    expect(readdirSync(box).sort()).toEqual(['dest']);
    expect(existsSync(join(w, 'escaped.txt'))).toBe(false);
  });

  test('with overwrite a directory entry replaces a link with a real directory, and its files go inside', async () => {
    const { w, dest } = work();
    const away = join(w, 'away');
    mkdirSync(away);
    symlinkSync(away, join(dest, 'out'));
    writeFileSync(join(w, `ok.${ext}`), await build([{ path: 'out/', type: 'Directory' }, { path: 'out/x.txt', body: 'inside' }]));
    const r = await extract(join(w, `ok.${ext}`), dest, { overwrite: true });
    expect(r).toEqual({ status: 'succeeded', error: '' });
    expect(lstatSync(join(dest, 'out')).isDirectory()).toBe(true);
    expect(readFileSync(join(dest, 'out', 'x.txt'), 'utf8')).toBe('inside');
    expect(readdirSync(away)).toEqual([]);
  });

  test('the decompression budget: more entries or bytes than allowed fail the step', async () => {
    const { w, dest } = work();
    writeFileSync(join(w, `many.${ext}`), await build(Array.from({ length: 5 }, (_, i) => ({ path: `f${i}.txt`, body: 'x'.repeat(100) }))));
    const entries = await extract(join(w, `many.${ext}`), dest, { maxEntries: 3 });
    expect(entries).toEqual({ status: 'failed', error: 'archive step: the archive has more than 3 entries (config.maxEntries): refused' });
    const bytes = await extract(join(w, `many.${ext}`), join(w, 'other'), { maxBytes: 250 });
    expect(bytes).toEqual({ status: 'failed', error: 'archive step: the archive expands to more than 250 bytes (config.maxBytes): refused' });
    expect(readdirSync(dest).length).toBeLessThanOrEqual(3);
  });
});
