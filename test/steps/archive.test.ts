/**
 * The archive step type through the real embedded engine, on temp directories: create, list and extract
 * round trips for tar, tar.gz and zip; include/exclude; overwrite and stripComponents; hostile archives
 * (zip slip, `..` and absolute tar names, symlinks and hard links out) refused; damaged archives
 * detected (with verifyIntegrity, before anything is written); clear errors; abort and timeout.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Header } from 'tar';
import yazl from 'yazl';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import { runArchive } from '../../src/runtime/steps/archive/index.js';
import { runSteps } from '../helpers/steps.js';

const runners = { archive: runArchive };
const made: string[] = [];
function tmp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-archive-'));
  made.push(dir);
  return dir;
}
afterAll(() => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

/** A work dir holding data/: a.txt, b.log, sub/c.txt, empty/, link -> a.txt. */
function workDir(): string {
  const w = tmp();
  mkdirSync(join(w, 'data', 'sub'), { recursive: true });
  mkdirSync(join(w, 'data', 'empty'));
  writeFileSync(join(w, 'data', 'a.txt'), 'alpha\n');
  writeFileSync(join(w, 'data', 'b.log'), 'log line\n');
  writeFileSync(join(w, 'data', 'sub', 'c.txt'), 'gamma\n'.repeat(1000));
  symlinkSync('a.txt', join(w, 'data', 'link'));
  return w;
}

/** Every path under a directory (sorted, '/'-separated). */
function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((p) => p.split('\\').join('/')).sort();
}

/** One archive step (or several) in `dir`; returns the run. */
function steps(dir: string, body: string, extra = '') {
  return runSteps(`type: graph\nworkingDir: ${dir}\n${extra}steps:\n${body}`, { runners });
}

const step = (name: string, command: string, config: Record<string, unknown>, more = ''): string =>
  `  - name: ${name}\n    type: archive\n    command: ${command}\n    config: ${JSON.stringify(config)}\n${more}`;

async function json(r: Awaited<ReturnType<typeof runSteps>>, name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await r.log(name)) as Record<string, unknown>;
}

describe('archive steps: round trips', () => {
  test.each(['tar', 'tar.gz', 'zip'])('%s: create, list and extract keep files, directories, modes and symlinks', async (ext) => {
    const w = workDir();
    const r = await steps(w, [
      step('create', 'create', { source: 'data', destination: `out/data.${ext}`, verifyIntegrity: true }),
      step('list', 'list', { source: `out/data.${ext}` }, '    depends: create\n'),
      step('extract', 'extract', { source: `out/data.${ext}`, destination: 'restored' }, '    depends: create\n'),
    ].join(''));
    expect(r.status).toBe('succeeded');
    const format = ext;
    expect(await json(r, 'create')).toMatchObject({
      operation: 'create', source: 'data', destination: `out/data.${ext}`, format, filesAdded: 4, bytesArchived: 6 + 9 + 6000, verifyPerformed: true,
    });
    const list = await json(r, 'list');
    expect(list).toMatchObject({ operation: 'list', source: `out/data.${ext}`, format, totalFiles: 7, totalSize: 6015, verified: false });
    const files = list.files as Record<string, unknown>[];
    expect(files.map((f) => f.path)).toEqual(['data', 'data/a.txt', 'data/b.log', 'data/empty', 'data/link', 'data/sub', 'data/sub/c.txt']);
    expect(files[1]).toMatchObject({ path: 'data/a.txt', type: 'file', size: 6, mode: '-rw-r--r--', isDir: false });
    expect(files[1]!.modTime).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(files[3]).toMatchObject({ type: 'dir', isDir: true, mode: 'drwxr-xr-x' });
    expect(files[4]).toMatchObject({ type: 'symlink', linkTarget: 'a.txt' });
    expect(await json(r, 'extract')).toMatchObject({ operation: 'extract', destination: 'restored', filesExtracted: 4, bytesExtracted: 6015, filesSkipped: 0 });
    const out = join(w, 'restored', 'data');
    expect(tree(out)).toEqual(tree(join(w, 'data')));
    expect(readFileSync(join(out, 'sub', 'c.txt'), 'utf8')).toBe('gamma\n'.repeat(1000));
    expect(readlinkSync(join(out, 'link'))).toBe('a.txt');
    expect(lstatSync(join(out, 'a.txt')).mode & 0o777).toBe(0o644);
    expect(readdirSync(join(w, 'out'))).toEqual([`data.${ext}`]);
  });

  test('include and exclude filter create, list and extract; stripComponents drops leading directories', async () => {
    const w = workDir();
    const r = await steps(w, [
      step('create', 'create', { source: 'data', destination: 'txt.zip', include: ['**/*.txt'] }),
      step('all', 'create', { source: 'data', destination: 'all.tgz', exclude: ['**/*.log', 'data/empty'] }),
      step('list', 'list', { source: 'all.tgz', include: ['data/sub/**'] }, '    depends: all\n'),
      step('extract', 'extract', { source: 'all.tgz', destination: 'x', include: ['**/*.txt'], stripComponents: 1 }, '    depends: all\n'),
    ].join(''));
    expect(r.status).toBe('succeeded');
    expect(await json(r, 'create')).toMatchObject({ filesAdded: 2 });
    expect(((await json(r, 'list')).files as { path: string }[]).map((f) => f.path)).toEqual(['data/sub/c.txt']);
    expect(await json(r, 'extract')).toMatchObject({ filesExtracted: 2, filesSkipped: 1 });
    expect(tree(join(w, 'x'))).toEqual(['a.txt', 'sub', 'sub/c.txt']);
  });

  test('names starting with "@" are files like any other; a filter that matches nothing makes an empty archive', async () => {
    const w = workDir();
    writeFileSync(join(w, '@notes.txt'), 'at');
    const r = await steps(w, [
      step('at', 'create', { source: '@notes.txt', destination: 'at.tar' }),
      step('none', 'create', { source: 'data', destination: 'none.tgz', include: ['**/*.nothing'] }),
      step('list', 'list', { source: 'at.tar' }, '    depends: at\n'),
      step('empty', 'list', { source: 'none.tgz' }, '    depends: none\n'),
    ].join(''));
    expect(r.run.status.run.nodes.map((x) => x.error ?? '')).toEqual(['', '', '', '']);
    expect(r.status).toBe('succeeded');
    expect(((await json(r, 'list')).files as { path: string }[]).map((f) => f.path)).toEqual(['@notes.txt']);
    expect(await json(r, 'empty')).toMatchObject({ totalFiles: 0, files: [] });
  });

  test('a single file; extract defaults to the working directory; a second extract needs overwrite', async () => {
    const w = workDir();
    writeFileSync(join(w, 'one.txt'), 'one');
    const first = await steps(w, [
      step('create', 'create', { source: 'one.txt', destination: 'one.tar', format: 'tar' }),
      step('move', 'extract', { source: 'one.tar', destination: 'here' }, '    depends: create\n'),
    ].join(''));
    expect(first.status).toBe('succeeded');
    expect(readFileSync(join(w, 'here', 'one.txt'), 'utf8')).toBe('one');
    writeFileSync(join(w, 'here', 'one.txt'), 'changed');
    const again = await steps(join(w, 'here'), step('x', 'extract', { source: '../one.tar' }));
    expect(again.node('x').error).toBe('archive step: one.txt already exists in the destination (set overwrite: true to replace it)');
    expect(readFileSync(join(w, 'here', 'one.txt'), 'utf8')).toBe('changed');
    const forced = await steps(join(w, 'here'), step('x', 'extract', { source: '../one.tar', overwrite: true }));
    expect(forced.status).toBe('succeeded');
    expect(readFileSync(join(w, 'here', 'one.txt'), 'utf8')).toBe('one');
  });

  test('the format comes from the content when the name says nothing; an archive inside its own source is not archived', async () => {
    const w = workDir();
    const r = await steps(w, [
      step('create', 'create', { source: 'data', destination: 'data/self.zip' }),
      step('again', 'create', { source: 'data', destination: 'data/self.zip' }, '    depends: create\n'),
      step('copy', 'create', { source: 'data', destination: 'blob.bin', format: 'TGZ' }, '    depends: again\n'),
      step('list', 'list', { source: 'blob.bin' }, '    depends: copy\n'),
    ].join(''));
    expect(r.status).toBe('succeeded');
    expect(await json(r, 'again')).toMatchObject({ filesAdded: 4 });
    // data now holds self.zip (one more file), and the list sniffed the format from the content.
    expect(await json(r, 'list')).toMatchObject({ format: 'tar.gz', totalFiles: 8 });
  });
});

/** A tar archive written by hand, so names node-tar would sanitise go in as they are. */
function rawTar(entries: { path: string; type?: 'File' | 'SymbolicLink' | 'Link' | 'Directory'; body?: string; linkpath?: string }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const block = Buffer.alloc(512);
    new Header({ path: e.path, type: e.type ?? 'File', size: body.length, mode: 0o644, mtime: new Date(), ...(e.linkpath ? { linkpath: e.linkpath } : {}) }).encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A zip whose entry names are patched after yazl wrote them (yazl refuses unsafe names). */
async function rawZip(entries: { safe: string; name: string; body: string }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(Buffer.from(e.body), e.safe);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  const buf = Buffer.concat(chunks);
  for (const e of entries) {
    if (e.safe.length !== e.name.length) throw new Error('patched names must keep their length');
    for (let i = buf.indexOf(e.safe); i !== -1; i = buf.indexOf(e.safe, i + 1)) buf.write(e.name, i, 'latin1');
  }
  return buf;
}

describe('archive steps: hostile archives are refused', () => {
  const cases: [string, () => Promise<Buffer> | Buffer, string, string][] = [
    ['zip slip', () => rawZip([{ safe: 'ok.txt', name: 'ok.txt', body: 'fine' }, { safe: 'AA/evil.txt', name: '../evil.txt', body: 'pwned' }]), 'zip',
      'archive step: entry "../evil.txt" would be written outside the destination (it has a ".." segment): refused'],
    ['zip absolute name', () => rawZip([{ safe: 'Atmp/evil.txt', name: '/tmp/evil.txt', body: 'pwned' }]), 'zip',
      'archive step: entry "/tmp/evil.txt" would be written outside the destination (it is an absolute path): refused'],
    ['tar ..', () => rawTar([{ path: 'ok.txt', body: 'fine' }, { path: 'a/../../evil.txt', body: 'pwned' }]), 'tar',
      'archive step: entry "a/../../evil.txt" would be written outside the destination (it has a ".." segment): refused'],
    ['tar absolute name', () => rawTar([{ path: '/tmp/evil.txt', body: 'pwned' }]), 'tar',
      'archive step: entry "/tmp/evil.txt" would be written outside the destination (it is an absolute path): refused'],
    ['tar symlink out', () => rawTar([{ path: 'up', type: 'SymbolicLink', linkpath: '../..' }, { path: 'up/evil.txt', body: 'pwned' }]), 'tar',
      'archive step: entry "up" would be written outside the destination (it is a symlink to "../.."): refused'],
    ['tar absolute symlink', () => rawTar([{ path: 'etc', type: 'SymbolicLink', linkpath: '/etc' }]), 'tar',
      'archive step: entry "etc" would be written outside the destination (it is a symlink to "/etc", not a relative path): refused'],
    ['tar symlink through a symlink', () => rawTar([
      { path: 'a/b', type: 'Directory' }, { path: 'a/b/here', type: 'SymbolicLink', linkpath: '.' },
      { path: 'a/b/sneaky', type: 'SymbolicLink', linkpath: 'here/../../..' },
    ]), 'tar', 'archive step: entry "a/b/sneaky" would be written outside the destination (it is a symlink to "here/../../..", which resolves outside): refused'],
    ['tar hard link out', () => rawTar([{ path: 'pw', type: 'Link', linkpath: '../../etc/passwd' }]), 'tar',
      'archive step: entry "pw" would be written outside the destination (it is a hard link to "../../etc/passwd"): refused'],
  ];

  test.each(cases)('%s', async (_name, build, ext, error) => {
    const w = tmp();
    writeFileSync(join(w, `evil.${ext}`), await build());
    mkdirSync(join(w, 'box', 'inner'), { recursive: true });
    const r = await steps(join(w, 'box', 'inner'), step('x', 'extract', { source: `../../evil.${ext}` }));
    expect(r.node('x').error).toBe(error);
    expect(existsSync(join(w, 'evil.txt'))).toBe(false);
    expect(existsSync(join(w, 'box', 'evil.txt'))).toBe(false);
    // With verifyIntegrity the whole archive is checked first: nothing at all is written (except where only
    // the real path on disk shows the escape: a link through a link, caught when it is made).
    rmSync(join(w, 'box', 'inner'), { recursive: true });
    const checked = await steps(w, step('x', 'extract', { source: `evil.${ext}`, destination: 'box/inner', verifyIntegrity: true }));
    expect(checked.node('x').error).toBe(error);
    const inner = join(w, 'box', 'inner');
    const left = existsSync(inner) ? readdirSync(inner) : [];
    if (_name !== 'tar symlink through a symlink') expect(left).toEqual([]);
    else expect(readdirSync(join(inner, 'a', 'b'))).toEqual(['here']);
  });

  test('a symlink already in the destination that leads out is not written through', async () => {
    const w = tmp();
    const away = tmp();
    writeFileSync(join(w, 'a.tar'), rawTar([{ path: 'out/x.txt', body: 'pwned' }]));
    mkdirSync(join(w, 'dest'));
    symlinkSync(away, join(w, 'dest', 'out'));
    const r = await steps(w, step('x', 'extract', { source: 'a.tar', destination: 'dest' }));
    expect(r.node('x').error).toBe('archive step: cannot extract "out/x.txt": "out" on its path is a symlink (extraction never writes through a link)');
    expect(readdirSync(away)).toEqual([]);
  });

  test('list shows a hostile archive as it is, without writing anything', async () => {
    const w = tmp();
    writeFileSync(join(w, 'evil.zip'), await rawZip([{ safe: 'AA/evil.txt', name: '../evil.txt', body: 'pwned' }]));
    const r = await steps(w, step('l', 'list', { source: 'evil.zip' }));
    expect(r.status).toBe('succeeded');
    expect(((await json(r, 'l')).files as { path: string }[]).map((f) => f.path)).toEqual(['../evil.txt']);
  });
});

describe('archive steps: damage and errors', () => {
  async function damagedCopy(w: string, ext: string, at: (buf: Buffer) => number): Promise<string> {
    const r = await steps(w, step('c', 'create', { source: 'data', destination: `good.${ext}` }));
    expect(r.status).toBe('succeeded');
    const buf = readFileSync(join(w, `good.${ext}`));
    buf[at(buf)]! ^= 0xff;
    writeFileSync(join(w, `bad.${ext}`), buf);
    return `bad.${ext}`;
  }

  test.each([
    ['tar.gz', (b: Buffer) => b.length - 6, /bad\.tar\.gz is damaged or not a tar\.gz archive: zlib: incorrect data check/],
    // Inside the compressed content of data/sub/c.txt: between its local header's name and the next header.
    ['zip', (b: Buffer) => {
      const start = b.indexOf('data/sub/c.txt') + 14;
      return Math.floor((start + b.indexOf('PK', start)) / 2);
    }, /entry "data\/a\.txt" is damaged \(CRC-32 mismatch\)|bad\.zip is damaged or not a zip archive/],
    ['tar', () => 600, /bad\.tar is damaged or not a tar archive: TAR_ENTRY_INVALID: checksum failure/],
  ])('%s: verifyIntegrity finds the damage before anything is written', async (ext, at, error) => {
    const w = workDir();
    const bad = await damagedCopy(w, ext, at);
    const r = await steps(w, step('x', 'extract', { source: bad, destination: 'out', verifyIntegrity: true }) + step('l', 'list', { source: bad, verifyIntegrity: true }));
    expect(r.node('x').error).toMatch(error);
    expect(r.node('l').error).toMatch(error);
    expect(existsSync(join(w, 'out'))).toBe(false);
  });

  test('damage is found without verifyIntegrity too (a truncated tar.gz)', async () => {
    const w = workDir();
    const r0 = await steps(w, step('c', 'create', { source: 'data', destination: 'good.tgz' }));
    expect(r0.status).toBe('succeeded');
    const buf = readFileSync(join(w, 'good.tgz'));
    writeFileSync(join(w, 'cut.tgz'), buf.subarray(0, buf.length - 20));
    const r = await steps(w, step('x', 'extract', { source: 'cut.tgz', destination: 'out' }));
    expect(r.node('x').error).toMatch(/cut\.tgz is damaged or not a tar\.gz archive: zlib: unexpected end of file/);
  });

  test('clear errors: missing source, unknown format, not an archive, bad config', async () => {
    const w = workDir();
    writeFileSync(join(w, 'notes.txt'), 'just text\n'.repeat(100));
    const r = await steps(w, [
      step('missing', 'extract', { source: 'nope.tgz' }),
      step('missingdir', 'create', { source: 'nodir', destination: 'x.zip' }),
      step('rar', 'create', { source: 'data', destination: 'x.rar' }),
      step('fmt', 'list', { source: 'notes.txt', format: '${FMT}' }),
      step('text', 'list', { source: 'notes.txt' }),
      step('textzip', 'list', { source: 'notes.txt', format: 'zip' }),
      step('dir', 'list', { source: 'data' }),
      step('nodest', 'create', { source: 'data', destination: '${NONE}' }),
      step('strip', 'extract', { source: 'x.tar', stripComponents: '${NEG}' }),
      `  - name: verb\n    type: archive\n    command: \${VERB}\n    config: { source: data }\n`,
    ].join(''), 'env:\n  - FMT: 7z\n  - NONE: ""\n  - NEG: "-1"\n  - VERB: compress\n');
    // (Values like these written literally are refused when the DAG loads: step-configs/archive.ts.)
    expect(r.node('missing').error).toBe('archive step: source nope.tgz does not exist');
    expect(r.node('missingdir').error).toBe('archive step: source nodir does not exist');
    expect(r.node('rar').error).toBe('archive step: cannot tell the format from the name "x.rar": name it .tar, .tar.gz, .tgz or .zip, or set config.format');
    expect(r.node('fmt').error).toBe('archive step: config.format "7z" is not supported (one of tar, tar.gz, tgz, zip)');
    expect(r.node('text').error).toBe('archive step: notes.txt is not a tar, tar.gz or zip archive (set config.format if it is one)');
    expect(r.node('textzip').error).toMatch(/^archive step: notes\.txt is damaged or not a zip archive: /);
    expect(r.node('dir').error).toBe('archive step: source data is not a file (an archive to read)');
    expect(r.node('nodest').error).toBe('archive step: config.destination (the archive to write) is required for create');
    expect(r.node('strip').error).toBe('archive step: config.stripComponents must be a whole number of at least 0');
    expect(r.node('verb').error).toBe('archive step: command must be one of create, extract, list (got "compress")');
  });
});

describe('archive steps: stop and timeout', () => {
  /** 128 MB of incompressible data: compressing it takes seconds. */
  let big = '';
  /**
   * How long a whole create of `big` would take on this machine now, from one of its 16 files: "at once"
   * is measured against it, so a loaded machine (every step slower) does not fail the test.
   */
  let wholeMs = 0;
  beforeAll(async () => {
    big = join(tmp(), 'big');
    mkdirSync(big);
    for (let i = 0; i < 16; i++) writeFileSync(join(big, `f${i}.bin`), randomBytes(8 << 20));
    const one = join(tmp(), 'one');
    mkdirSync(one);
    writeFileSync(join(one, 'f.bin'), randomBytes(8 << 20));
    const req = { commands: ['create'], config: { source: one, destination: 'one.tgz' }, workingDir: tmp(), env: {}, secrets: [] } as unknown as ExecRequest;
    const t = Date.now();
    await runArchive({ req, io: { out: () => undefined, err: () => undefined }, signal: new AbortController().signal });
    wholeMs = (Date.now() - t) * 16;
  });

  test('an abort ends create at once and leaves no archive and no temp file', async () => {
    const w = tmp();
    const abort = new AbortController();
    const req = { commands: ['create'], config: { source: big, destination: 'out/big.tgz' }, workingDir: w, env: {}, secrets: [] } as unknown as ExecRequest;
    const t = Date.now();
    setTimeout(() => abort.abort(new Error('stopped')), 200);
    await expect(runArchive({ req, io: { out: () => undefined, err: () => undefined }, signal: abort.signal })).rejects.toThrow();
    expect(Date.now() - t).toBeLessThan(Math.max(1500, wholeMs / 2));
    expect(readdirSync(join(w, 'out'))).toEqual([]);
  });

  test('the step timeout stops a long create', async () => {
    const w = tmp();
    const t = Date.now();
    const r = await steps(w, step('c', 'create', { source: big, destination: 'big.tgz' }, '    timeoutSec: 1\n'));
    expect(r.node('c').error).toContain('timed out after 1s');
    expect(Date.now() - t).toBeLessThan(Math.max(5_000, 1_000 + wholeMs / 2));
    await new Promise((res) => setTimeout(res, 300));
    expect(readdirSync(w)).toEqual([]);
  });
});

describe('archive example', () => {
  test('examples/steps/archive.yaml runs', async () => {
    const w = tmp();
    const r = await runSteps(readFileSync('examples/steps/archive.yaml', 'utf8'), { runners, params: `WORK=${w}` });
    expect(r.status).toBe('succeeded');
    expect(await r.log('show')).toContain('total: 42');
    expect(tree(join(w, 'restored'))).toEqual(['2024', '2024/summary.txt']);
  });
});
