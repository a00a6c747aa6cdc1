/**
 * A command's DAG argument (issue 20): a file path, or the name of a DAG of the DAGs directory; what
 * cannot be found or read is a sentence, never a raw ENOENT or EISDIR.
 */
import { Sandbox } from '../helpers/cli.js';

const sb = new Sandbox();
beforeAll(() => {
  sb.dag('hello', 'steps:\n  - name: greet\n    command: echo hello from the DAGs directory\n');
});

test('svc start, validate and dry take a DAG name from the DAGs directory', async () => {
  const started = await sb.run(['start', 'hello']);
  expect([started.code, started.stderr]).toEqual([0, '']);
  expect(started.stdout).toMatch(/dag-run \S+ succeeded/);
  expect((await sb.run(['validate', 'hello'])).stdout).toContain('hello: valid (DAG hello, 1 steps)');
  expect((await sb.run(['dry', 'hello'])).code).toBe(0);
});

test('a name that is neither a file nor a DAG is a sentence naming where it looked', async () => {
  for (const cmd of ['start', 'validate', 'dry']) {
    const r = await sb.run([cmd, 'nope']);
    expect([cmd, r.code]).toEqual([cmd, 1]);
    expect(r.stderr).toContain(`no DAG file nope, and no DAG named "nope" in the DAGs directory ${sb.dagsDir} (SVC_DAGS_DIR)`);
    expect(r.stderr).not.toMatch(/ENOENT|EISDIR|errno/);
  }
});

test('a directory is said to be one', async () => {
  const r = await sb.run(['validate', sb.dagsDir]);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${sb.dagsDir} is a directory: name a DAG file in it, or a DAG of the DAGs directory`);
  expect(r.stderr).not.toMatch(/EISDIR/);
});

test('svc validate and dry report a call cycle through the DAGs directory, as a start refuses it', async () => {
  sb.dag('ping', 'steps:\n  - name: to-pong\n    call: pong\n');
  sb.dag('pong', 'steps:\n  - name: to-ping\n    call: ping\n');
  for (const cmd of ['validate', 'dry', 'start']) {
    const r = await sb.run([cmd, 'ping']);
    expect([cmd, r.code]).toEqual([cmd, 1]);
    expect(r.stderr).toContain('call cycle: ping -> pong -> ping');
  }
});
