import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { collect, eventually, Sandbox } from '../helpers/cli.js';

const node = (detail: any, name: string) => detail.dagRun.nodes.find((n: any) => n.step.name === name);
const status = (sb: Sandbox, dag: string) => sb.json(['status', dag, '--json']).catch(() => undefined);

describe('run control: stop, crash takeover, retry', () => {
  const sb = new Sandbox();

  /** Starts a DAG file and kill -9s the engine once `step` runs. */
  async function crashWhileRunning(file: string, dag: string, runId: string, step: string): Promise<void> {
    const child = sb.spawn(['start', file, '--run-id', runId]);
    const exited = collect(child);
    await eventually(async () => node(await status(sb, dag), step)?.statusLabel === 'running', 'step running');
    child.kill('SIGKILL');
    await exited;
  }

  /** `steps:` of s1..sN, each appending its name to `file`; `after` adds shell text to a step's command. */
  const echoSteps = (count: number, file: string, after: Record<string, string> = {}): string =>
    `steps:\n${Array.from({ length: count }, (_, i) => `s${i + 1}`).map((n) => `  - name: ${n}\n    command: echo ${n} >> ${file}${after[n] ? `; ${after[n]}` : ''}\n`).join('')}`;

  /** The attempt directories of a run (exec records live under <attempt>/exec). */
  const attemptDirs = (dag: string, runId: string): string[] =>
    readdirSync(`${sb.dataDir}/runs/${dag}/${runId}/attempts`).map((a) => `${sb.dataDir}/runs/${dag}/${runId}/attempts/${a}`);

  test('svc stop from another process signals the step and the run ends aborted with the abort handler', async () => {
    const f = sb.dag('stoppable', `
steps:
  - name: long
    command: trap 'echo got-term; exit 143' TERM; sleep 30 & wait
  - name: after
    command: "true"
handlerOn:
  abort:
    command: echo aborted-handler
`);
    const running = collect(sb.spawn(['start', f]));
    await eventually(async () => node(await status(sb, 'stoppable'), 'long')?.statusLabel === 'running', 'step running');
    const stop = await sb.run(['stop', 'stoppable']);
    expect(stop.code).toBe(0);
    const r = await running;
    expect(r.code).toBe(1);
    const d = await sb.json(['status', 'stoppable', '--json']);
    expect(d.dagRun.statusLabel).toBe('aborted');
    expect(node(d, 'long').statusLabel).toBe('aborted');
    expect(node(d, 'after').statusLabel).toBe('not_started');
    expect(d.dagRun.onAbort.statusLabel).toBe('succeeded');
    expect(readFileSync(node(d, 'long').stdout, 'utf8')).toContain('got-term');
    const again = await sb.run(['stop', 'stoppable']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not_running/);
  });

  test('a stop request reaches a driver that never idles (a stream of short steps) at once', async () => {
    const steps = Array.from({ length: 3000 }, (_, i) => `  - name: s${i}\n    command: "true"\n    depends: []\n`).join('');
    const f = sb.dag('busy', `type: graph\nmaxActiveSteps: 4\nsteps:\n${steps}`);
    const running = collect(sb.spawn(['start', f]));
    await eventually(async () => node(await status(sb, 'busy'), 's20')?.statusLabel === 'succeeded', 'steps running');
    expect((await sb.run(['stop', 'busy'])).code).toBe(0);
    expect((await running).code).toBe(1);
    const d = await sb.json(['status', 'busy', '--json']);
    expect(d.dagRun.statusLabel).toBe('aborted');
    // Stopped early: most steps never started.
    expect(d.dagRun.nodes.filter((n: any) => n.statusLabel === 'not_started').length).toBeGreaterThan(1500);
  });

  test('kill -9 of the engine: svc resume adopts the step still running and finishes the run, nothing runs twice', async () => {
    const f = sb.dag('crashy', `
steps:
  - name: quiet
    command: echo started >> quiet.count; sleep 3; echo done >> quiet.count
  - name: next
    command: echo next >> next.count
`);
    await crashWhileRunning(f, 'crashy', 'crash1', 'quiet');
    const orphan = await sb.run(['status', 'crashy']);
    expect(orphan.stdout).toMatch(/running \(orphaned/);
    const resumed = await sb.run(['resume', 'crashy', '--run-id', 'crash1']);
    expect(resumed.code).toBe(0);
    const d = await sb.json(['status', 'crashy', '--json']);
    expect(d.dagRun.statusLabel).toBe('succeeded');
    expect(readFileSync(`${sb.dagsDir}/quiet.count`, 'utf8')).toBe('started\ndone\n');
    expect(readFileSync(`${sb.dagsDir}/next.count`, 'utf8')).toBe('next\n');
  });

  test.each([5, 17, 29])('kill -9 at any point of a fast chain (after s%i starts): resume runs every step exactly once', async (k) => {
    const f = sb.dag(`fastchain${k}`, `type: chain\n${echoSteps(40, `ran-${k}.txt`)}`);
    const child = sb.spawn(['start', f, '--run-id', `fc${k}`]);
    const exited = collect(child);
    await new Promise<void>((resolve) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        if (out.includes(`running    s${k}\n`)) { child.kill('SIGKILL'); resolve(); }
      });
    });
    await exited;
    expect((await sb.run(['resume', `fastchain${k}`, '--run-id', `fc${k}`])).code).toBe(0);
    const ran = readFileSync(`${sb.dagsDir}/ran-${k}.txt`, 'utf8').trim().split('\n');
    expect(ran).toEqual(Array.from({ length: 40 }, (_, i) => `s${i + 1}`));
    expect((await sb.json(['status', `fastchain${k}`, '--json'])).dagRun.statusLabel).toBe('succeeded');
  });

  /** Shell text for step s2: once the status written behind shows s2 running (within the write interval), copy it. */
  const copyWhenSaved = (dag: string, to: string): string => {
    // The data directory as a path: SVC_DATA_DIR is svc's own setting, which steps do not get.
    const f = `"${sb.dataDir}/runs/${dag}/$DAG_RUN_ID/status.json"`;
    return `i=0; until grep -q '"name":"s2","status":1,' ${f} || [ $i -ge 500 ]; do i=$((i+1)); sleep 0.01; done; cp ${f} ${to}`;
  };

  test('a saved status that lags behind the steps (written behind when the engine died): resume runs nothing twice', async () => {
    // s2 copies the status as saved while it runs: at most s2 running, s3..s5 not started. Putting that
    // copy back after the run is the state a crash leaves when the newest writes were still in flight.
    const f = sb.dag('lagging', echoSteps(5, 'lag.txt', { s2: copyWhenSaved('lagging', 'lag-status.json') }));
    expect((await sb.run(['start', f, '--run-id', 'lag1'])).code).toBe(0);
    const lagging = readFileSync(`${sb.dagsDir}/lag-status.json`, 'utf8');
    expect(JSON.parse(lagging).status.run.nodes.map((n: any) => n.status)).toEqual([4, 1, 0, 0, 0]);
    writeFileSync(`${sb.dataDir}/runs/lagging/lag1/status.json`, lagging);
    expect((await sb.run(['resume', 'lagging', '--run-id', 'lag1'])).code).toBe(0);
    expect(readFileSync(`${sb.dagsDir}/lag.txt`, 'utf8')).toBe('s1\ns2\ns3\ns4\ns5\n');
    const d = await sb.json(['status', 'lagging', '--json']);
    expect(d.dagRun.nodes.map((n: any) => n.statusLabel)).toEqual(Array(5).fill('succeeded'));
  });

  test('a step saved as running whose start was never recorded (the engine died first) is started on resume', async () => {
    const f = sb.dag('unstarted', echoSteps(2, 'unstarted.txt', { s2: copyWhenSaved('unstarted', 'unstarted-status.json') }));
    expect((await sb.run(['start', f, '--run-id', 'un1'])).code).toBe(0);
    // Back to "s2 running" with no trace of s2 ever starting: its records and its output removed.
    writeFileSync(`${sb.dataDir}/runs/unstarted/un1/status.json`, readFileSync(`${sb.dagsDir}/unstarted-status.json`));
    for (const a of attemptDirs('unstarted', 'un1')) rmSync(`${a}/exec`, { recursive: true, force: true });
    writeFileSync(`${sb.dagsDir}/unstarted.txt`, 's1\n');
    expect((await sb.run(['resume', 'unstarted', '--run-id', 'un1'])).code).toBe(0);
    expect(readFileSync(`${sb.dagsDir}/unstarted.txt`, 'utf8')).toBe('s1\ns2\n');
  });

  test('a step that ended while the engine was down is read from its exit record', async () => {
    const f = sb.dag('crashy2', `
steps:
  - name: quick
    command: sleep 3; exit 4
    continueOn:
      exitCode: [4]
  - name: next
    command: "true"
`);
    await crashWhileRunning(f, 'crashy2', 'c2', 'quick');
    // The step ends while no engine runs: its exit record is all that tells how.
    const ended = (a: string): boolean => existsSync(`${a}/exec/records`) && /^quick\.0 4$/m.test(readFileSync(`${a}/exec/records`, 'utf8'));
    await eventually(async () => attemptDirs('crashy2', 'c2').some(ended), 'the exit code in the exec record', 10_000);
    expect((await sb.run(['resume', 'crashy2', '--run-id', 'c2'])).code).toBe(0);
    const d = await sb.json(['status', 'crashy2', '--json']);
    expect(node(d, 'quick')).toMatchObject({ statusLabel: 'failed', error: 'exit status 4' });
    expect(d.dagRun.statusLabel).toBe('partially_succeeded');
  });

  test('svc retry re-runs the failed step and its dependants, keeping succeeded upstream steps', async () => {
    const f = sb.dag('retryable', `
steps:
  - name: first
    command: echo x >> first.count
  - name: gate
    command: test -f ready
  - name: last
    command: echo done
`);
    expect((await sb.run(['start', f, '--run-id', 'rt'])).code).toBe(1);
    sb.file('dags/ready', '');
    const r = await sb.run(['retry', 'retryable', '--run-id', 'rt']);
    expect(r.code).toBe(0);
    const d = await sb.json(['status', 'retryable', '--json']);
    expect(d.dagRun.nodes.map((n: any) => n.statusLabel)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(readFileSync(`${sb.dagsDir}/first.count`, 'utf8')).toBe('x\n');
    expect((await sb.run(['retry', 'retryable', '--run-id', 'nope'])).code).toBe(1);
  });
});

describe('validate and dry', () => {
  const sb = new Sandbox();

  test('validate lists every problem and exits 1; a valid file exits 0', async () => {
    const f = sb.dag('broken', `
name: this-name-is-definitely-longer-than-forty-characters
steps:
  - name: a
    command: echo
    depends: [missing]
    retryPolicy:
      limit: many
  - name: a
    command: echo
`);
    const r = await sb.run(['validate', f]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/name/);
    expect(r.stderr).toMatch(/missing/);
    expect(r.stderr).toMatch(/limit/);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('  - ')).length).toBeGreaterThanOrEqual(4);
    expect((await sb.run(['start', f])).code).toBe(1);
    const ok = sb.dag('fine', 'steps:\n  - command: echo hi\n');
    expect((await sb.run(['validate', ok])).code).toBe(0);
  });

  test('dry prints the plan and executes nothing', async () => {
    const f = sb.dag('plan', `
type: graph
steps:
  - name: a
    command: touch dry-ran
  - name: b
    command: echo b
    depends: [a]
  - name: c
    command: echo c
    depends: [a]
`);
    const r = await sb.run(['dry', f]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1\. a/);
    expect(r.stdout).toMatch(/2\. b \(after a\)/);
    expect(r.stdout).toMatch(/2\. c \(after a\)/);
    expect(existsSync(`${sb.dagsDir}/dry-ran`)).toBe(false);
  });
});
