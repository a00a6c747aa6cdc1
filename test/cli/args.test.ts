/**
 * The command line as people expect one (issue 20): --version, --help on every command (and never running
 * it), unknown commands and options named with a suggestion, a missing option value or a wrong number of
 * arguments refused with exit 2 before anything runs.
 */
import { Sandbox } from '../helpers/cli.js';

const sb = new Sandbox();
beforeAll(() => {
  sb.dag('hello', 'steps:\n  - name: greet\n    command: echo hi\n');
});

test('svc --version and svc -v print the version', async () => {
  for (const v of ['--version', '-v']) expect(await sb.run([v])).toEqual({ code: 0, stdout: 'svc 0.1.0\n', stderr: '' });
});

test.each(['server', 'status', 'start', 'operator', 'kube', 'retry'])('svc %s --help prints its usage and runs nothing', async (cmd) => {
  const r = await sb.run([cmd, '--help']);
  expect([r.code, r.stderr]).toEqual([0, '']);
  expect(r.stdout).toMatch(new RegExp(`^usage: svc ${cmd} `));
  expect(r.stdout).toContain('--help, -h');
  expect((await sb.run(['help', cmd])).stdout).toBe(r.stdout);
});

test('an unknown command is named, with the closest one', async () => {
  const r = await sb.run(['sart', 'hello']);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/^svc: unknown command "sart" \(did you mean "start"\?\)\nusage: svc <command>/);
});

test('an unknown option is refused before anything runs, with the closest one', async () => {
  const r = await sb.run(['start', 'hello', '--parms', 'X=1']);
  expect([r.code, r.stdout]).toEqual([2, '']);
  expect(r.stderr).toContain('svc start: unknown option --parms (did you mean --params?)');
  expect((await sb.run(['status', 'hello'])).stderr).toContain('not found'); // no run was made
});

test.each([
  [['status', 'hello', '--run-id'], 'svc status: option --run-id needs a value'],
  [['status', 'hello', '--run-id', '--json'], 'svc status: option --run-id needs a value'],
  [['status', 'hello', '--json=yes'], 'svc status: option --json takes no value'],
  [['validate', 'a', 'b'], 'svc validate: unexpected argument "b"'],
  [['stop'], 'svc stop: missing arguments'],
])('%j: exit 2, "%s"', async (argv, message) => {
  const r = await sb.run(argv);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(message);
  expect(r.stderr).toContain(`usage: svc ${argv[0]} `);
});

test('no command: the usage on stderr, exit 2; svc help: on stdout, exit 0', async () => {
  const none = await sb.run([]);
  expect([none.code, none.stdout]).toEqual([2, '']);
  expect(none.stderr).toMatch(/^usage: svc <command>/);
  const help = await sb.run(['help']);
  expect([help.code, help.stderr]).toEqual([0, '']);
  expect(help.stdout).toMatch(/^usage: svc <command>/);
});
