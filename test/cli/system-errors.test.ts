/**
 * Errors outside a DAG argument (issue 20, item 8): a data or DAGs directory that is a file, a port already
 * taken. Each is one sentence naming the path or address (and the setting behind it), exit 2, never Node's
 * `ENOTDIR: not a directory, scandir '...'` or `listen EADDRINUSE`.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Sandbox } from '../helpers/cli.js';

const RAW = /\bE[A-Z]{3,}\b|errno|syscall|\n\s+at /;

describe('a data directory that is a file', () => {
  const file = new Sandbox().file('not-a-dir', 'x');

  test('svc server says which file is in the way and which setting names it', async () => {
    const srv = new Sandbox({ SVC_DATA_DIR: file, SVC_DAGS_DIR: join(file, 'dags'), SVC_PORT: '0' });
    const r = await srv.run(['server']);
    expect(r.code).toBe(2);
    const last = r.stderr.trim().split('\n').pop();
    expect(last).toMatch(new RegExp(`^svc server: cannot (list the directory|create the directory|read|open) ${file}/\\S+: ${file} is a file, not a directory \\(the data directory, SVC_DATA_DIR\\)$`));
    expect(last).not.toMatch(RAW);
  });

  test('svc list and svc runs, the same', async () => {
    const cli = new Sandbox({ SVC_DATA_DIR: file, SVC_DAGS_DIR: join(file, 'dags') });
    for (const argv of [['list'], ['runs', 'x']]) {
      const r = await cli.run(argv);
      expect([argv, r.code]).toEqual([argv, 2]);
      expect(r.stderr).toMatch(new RegExp(`^svc ${argv[0]}: cannot \\w+( the directory)? ${file}\\S*: ${file} is a file, not a directory \\(the data directory, SVC_DATA_DIR\\)\\n$`));
      expect(r.stderr).not.toMatch(RAW);
    }
  });
});

test('a DAGs directory that is a file: the listing and a DAG name say so, with SVC_DAGS_DIR', async () => {
  const sb = new Sandbox();
  const file = sb.file('dags-file', 'x');
  const cli = new Sandbox({ SVC_DAGS_DIR: file });
  const list = await cli.run(['list']);
  expect([list.code, list.stderr]).toEqual([2, `svc list: cannot list the directory ${file}: ${file} is a file, not a directory (the DAGs directory, SVC_DAGS_DIR)\n`]);
  const named = await cli.run(['validate', 'hello']);
  expect(named.code).toBe(1);
  expect(named.stderr).toContain(`cannot look for a DAG named "hello" in the DAGs directory ${file}: cannot read ${file}/hello.yaml: ${file} is a file, not a directory (the DAGs directory, SVC_DAGS_DIR)`);
  expect(named.stderr).not.toMatch(RAW);
});

test('svc server on a port already taken names the address', async () => {
  const taken = createServer();
  const port = await new Promise<number>((res) => taken.listen(0, '127.0.0.1', () => res((taken.address() as { port: number }).port)));
  try {
    const r = await new Sandbox({ SVC_HOST: '127.0.0.1', SVC_PORT: String(port) }).run(['server']);
    expect(r.code).toBe(2);
    const last = r.stderr.trim().split('\n').pop();
    expect(last).toBe(`svc server: cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens there)`);
  } finally {
    taken.close();
  }
});
