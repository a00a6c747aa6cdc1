/**
 * `--json` on the read commands that print text otherwise (issue 20, item 9): `svc logs` (a log page, as
 * GET .../log answers it, with its run, step and stream), `svc validate` (valid, errors and the DAG, as POST
 * /dags/validate answers them) and `svc dry` (the plan). One JSON document on stdout, nothing else there,
 * and the exit code of the text form.
 */
import { Sandbox, type CliResult } from '../helpers/cli.js';

const sb = new Sandbox();
let runId = '';
beforeAll(async () => {
  sb.dag('talk', 'steps:\n  - name: say\n    command: sh -c \'echo one; echo two; echo three; echo oops >&2\'\n');
  sb.dag('plan', [
    'kubernetes: {labels: {team: a}}',
    'steps:',
    '  - {name: top, command: echo top}',
    '  - {name: left, command: echo l, depends: [top]}',
    '  - {name: right, script: "echo r", depends: [top]}',
    '  - {name: end, command: echo e, depends: [left, right]}',
    'handlerOn:',
    '  exit: {command: echo bye}',
  ].join('\n'));
  sb.dag('broken', 'steps:\n  - name: s\n    depends: [nowhere]\n    command: "true"\n');
  sb.dag('secret', 'smtp:\n  host: mail\n  password: hunter2\nsteps:\n  - name: s\n    command: echo hi\n');
  const started = await sb.run(['start', 'talk', '--run-id', 'j1']);
  expect(started.code).toBe(0);
  runId = 'j1';
});

/** stdout as the one JSON document it must be, nothing before or after it. */
function parsed(r: CliResult): any {
  expect(r.stdout.endsWith('}\n')).toBe(true);
  return JSON.parse(r.stdout);
}

describe('svc logs --json', () => {
  test('a step\'s stdout: the page fields of GET .../steps/{step}/log, and which log it is', async () => {
    const r = await sb.run(['logs', 'talk', '--step', 'say', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const page = parsed(r);
    expect(page).toMatchObject({ dagName: 'talk', dagRunId: runId, step: 'say', stream: 'stdout', lineCount: 3, totalLines: 3, hasMore: false, isEstimate: false });
    expect(page.content.split('\n').filter(Boolean)).toEqual(['one', 'two', 'three']);
    expect(page.attemptId).toMatch(/\S/);
  });

  test('--stderr and --tail: the other stream, the last lines, hasMore for what came before', async () => {
    expect(parsed(await sb.run(['logs', 'talk', '--step', 'say', '--stderr', '--json']))).toMatchObject({ stream: 'stderr', content: expect.stringMatching(/^oops\n?$/), lineCount: 1 });
    const tail = parsed(await sb.run(['logs', 'talk', '--step', 'say', '--tail', '1', '--json']));
    expect(tail).toMatchObject({ lineCount: 1, totalLines: 3, hasMore: true, content: expect.stringMatching(/^three\n?$/) });
  });

  test('the run log: step null, stream "run", the run\'s lines', async () => {
    const page = parsed(await sb.run(['logs', 'talk', '--run-id', runId, '--json']));
    expect(page).toMatchObject({ dagName: 'talk', dagRunId: runId, step: null, stream: 'run' });
    expect(page.lineCount).toBeGreaterThan(0);
    expect(page.content).toMatch(/say/);
  });

  test('--json with --follow is refused (one document is not a stream); the help lists --json', async () => {
    const r = await sb.run(['logs', 'talk', '--json', '--follow']);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('svc logs: --json prints the log as it is now; it does not go with --follow');
    expect((await sb.run(['logs', '--help'])).stdout).toMatch(/--json {2}the log page as JSON/);
  });
});

describe('svc validate --json', () => {
  test('a valid DAG: valid, no errors, the DAG as the API shows it, and the notes', async () => {
    const r = await sb.run(['validate', 'plan', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const v = parsed(r);
    expect(v).toMatchObject({ valid: true, errors: [], dag: { name: 'plan', maxActiveSteps: expect.any(Number) } });
    expect(v.dag.steps.map((s: { name: string }) => s.name)).toEqual(['top', 'left', 'right', 'end']);
    expect(v.notes).toEqual([expect.stringContaining('kubernetes (DAG): applies on the kubernetes backend only')]);
  });

  test('an invalid DAG: exit 1, valid false, every error in the document, nothing on stderr', async () => {
    const r = await sb.run(['validate', sb.dag('broken', 'steps:\n  - name: s\n    depends: [nowhere]\n    command: "true"\n'), '--json']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    const v = parsed(r);
    expect(v.valid).toBe(false);
    expect(v.errors).toEqual([expect.stringContaining('nowhere')]);
    expect(v.dag).toBeNull();
  });

  test('a call cycle is an error of a DAG that parsed: the DAG is shown with it', async () => {
    sb.dag('ping', 'steps:\n  - name: to-pong\n    call: pong\n');
    sb.dag('pong', 'steps:\n  - name: to-ping\n    call: ping\n');
    const v = parsed(await sb.run(['validate', 'ping', '--json']));
    expect(v).toMatchObject({ valid: false, errors: [expect.stringContaining('call cycle: ping -> pong -> ping')], dag: { name: 'ping' } });
  });

  test('secrets of the DAG stay masked, as in the API\'s view', async () => {
    const r = await sb.run(['validate', 'secret', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('hunter2');
    expect(parsed(r).dag.smtp).toMatchObject({ host: 'mail', password: '*****' });
  });
});

describe('svc dry --json', () => {
  test('the plan: waves of steps in order, what each runs and after what, the handlers', async () => {
    const r = await sb.run(['dry', 'plan', '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const d = parsed(r);
    expect(d).toMatchObject({ valid: true, errors: [], plan: { dag: 'plan', steps: 4, handlers: ['exit'] } });
    expect(d.plan.waves.map((w: Array<{ name: string }>) => w.map((s) => s.name))).toEqual([['top'], ['left', 'right'], ['end']]);
    expect(d.plan.waves[1]).toEqual([
      { name: 'left', type: 'shell', run: 'echo l', depends: ['top'] },
      { name: 'right', type: 'shell', run: 'script', depends: ['top'] },
    ]);
    expect(d.notes).toHaveLength(1);
  });

  test('an invalid DAG: exit 1, no plan, the errors', async () => {
    const r = await sb.run(['dry', 'broken', '--json']);
    expect([r.code, r.stderr]).toEqual([1, '']);
    expect(parsed(r)).toMatchObject({ valid: false, errors: [expect.stringContaining('nowhere')], plan: null });
  });

  test('the text form is unchanged by the option\'s existence', async () => {
    const r = await sb.run(['dry', 'plan']);
    expect(r.stdout).toBe([
      'DAG plan: 4 steps, maxActiveSteps 1, nothing executed',
      '    1. top: shell echo top',
      '    2. left (after top): shell echo l',
      '    2. right (after top): shell script',
      '    3. end (after left, right): shell echo e',
      '  handlers: exit',
      'note: kubernetes (DAG): applies on the kubernetes backend only (the embedded engine ignores it)',
      '',
    ].join('\n'));
  });
});
