import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configPathHints, systemErrorSentence } from './system-error.js';

/** The error a call rejects with: the real one Node makes. */
const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('it did not fail'); }, (e: unknown) => e);

const listening = (s: Server, port = 0): Promise<number> => new Promise((res, rej) => {
  s.once('error', rej);
  s.listen(port, '127.0.0.1', () => res((s.address() as { port: number }).port));
});

describe('systemErrorSentence: Node system errors as sentences naming the path or address', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-syserr-'));
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  const hints = configPathHints({ dataDir: file, dagsDir: join(file, 'dags') });

  test.each<[string, () => Promise<unknown>, string]>([
    ['ENOENT', () => readFile(join(dir, 'missing.yaml')), `cannot open ${join(dir, 'missing.yaml')}: it does not exist`],
    ['EISDIR', () => readFile(dir), 'cannot read a file: it is a directory, where a file was expected'], // Node gives no path here
    ['EISDIR with a path', () => writeFile(dir, 'x'), `cannot open ${dir}: it is a directory, where a file was expected`],
    ['ENOTDIR, the file in the way named', () => readdir(join(file, 'runs')), `cannot list the directory ${join(file, 'runs')}: ${file} is a file, not a directory`],
    ['ENOTDIR, the path itself a file', () => readdir(file), `cannot list the directory ${file}: ${file} is a file, not a directory`],
    ['ENOTDIR on mkdir', () => mkdir(join(file, 'index'), { recursive: true }), `cannot create the directory ${join(file, 'index')}: ${file} is a file, not a directory`],
  ])('%s', async (_, call, sentence) => {
    const e = await failure(call());
    expect(systemErrorSentence(e)).toBe(sentence);
    expect(systemErrorSentence(e)).not.toMatch(/E[A-Z]{3,}/);
  });

  test('a path inside a configured directory names its setting: that of the file in the way', async () => {
    expect(systemErrorSentence(await failure(readdir(join(file, 'runs'))), hints)).toMatch(/ \(the data directory, SVC_DATA_DIR\)$/);
    const dags = configPathHints({ dataDir: dir, dagsDir: file });
    expect(systemErrorSentence(await failure(readdir(file)), dags)).toMatch(/ \(the DAGs directory, SVC_DAGS_DIR\)$/);
    expect(systemErrorSentence(await failure(readFile(join(tmpdir(), 'svc-nowhere-else'))), hints)).not.toContain('SVC_');
  });

  test('EACCES and EPERM: permission denied, with the path (made as Node makes them: tests run as root here)', () => {
    const e = Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { errno: -13, code: 'EACCES', syscall: 'open', path: file });
    expect(systemErrorSentence(e)).toBe(`cannot open ${file}: permission denied`);
    const rename = Object.assign(new Error('EPERM'), { code: 'EPERM', syscall: 'rename', path: '/a', dest: '/b' });
    expect(systemErrorSentence(rename)).toBe('cannot move /a to /b: operation not permitted');
  });

  test('EADDRINUSE: the address and port, and why', async () => {
    const first = createServer();
    const port = await listening(first);
    try {
      const e = await failure(listening(createServer(), port));
      expect(systemErrorSentence(e)).toBe(`cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens there)`);
    } finally {
      first.close();
    }
  });

  test('ECONNREFUSED, from a socket and from fetch (where it is the cause), made as Node makes them', () => {
    // Not provoked for real: while the test bed runs, a port on 127.0.0.1 that nothing listens on may still
    // accept connections, so the suite could not count on a refusal.
    const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { errno: -111, code: 'ECONNREFUSED', syscall: 'connect', address: '127.0.0.1', port: 9 });
    const sentence = 'cannot connect to 127.0.0.1:9: the connection was refused (nothing listens there)';
    expect(systemErrorSentence(socket)).toBe(sentence);
    expect(systemErrorSentence(new TypeError('fetch failed', { cause: socket }))).toBe(sentence);
    // Several addresses tried (happy eyeballs): an AggregateError that carries the code but no address.
    const v6 = Object.assign(new Error('connect ECONNREFUSED ::1:9'), { errno: -111, code: 'ECONNREFUSED', syscall: 'connect', address: '::1', port: 9 });
    const both = Object.assign(new AggregateError([v6, socket]), { code: 'ECONNREFUSED' });
    expect(systemErrorSentence(new TypeError('fetch failed', { cause: both }))).toBe('cannot connect to [::1]:9: the connection was refused (nothing listens there)');
  });

  test('anything else is left alone: no sentence', () => {
    expect(systemErrorSentence(new Error('boom'))).toBeUndefined();
    expect(systemErrorSentence(Object.assign(new Error('x'), { code: 'ERR_SOMETHING' }))).toBeUndefined();
    expect(systemErrorSentence('text')).toBeUndefined();
    expect(systemErrorSentence(Object.assign(new Error('x'), { code: 'EWEIRD', syscall: 'open', path: '/p' }))).toBeUndefined();
  });
});
