import { readFileSync, existsSync } from 'node:fs';
import { Sandbox } from '../helpers/cli.js';

const node = (detail: any, name: string) => detail.dagRun.nodes.find((n: any) => n.step.name === name);

describe('svc start: real DAG files as processes', () => {
  const sb = new Sandbox();

  test('a chain with params, env, outputs and an exit handler succeeds; status, logs and outputs.json agree', async () => {
    const f = sb.dag('hello', `
name: hello
params:
  - NAME: world
env:
  - GREETING: hello
steps:
  - name: greet
    command: echo "\${GREETING} \${NAME}"
    output: MESSAGE
  - name: shout
    command: echo "$MESSAGE" | tr a-z A-Z
    output: LOUD_MESSAGE
  - name: both
    command:
      - echo one
      - echo two >&2
handlerOn:
  exit:
    command: echo "bye $DAG_NAME $DAG_RUN_STATUS"
`);
    const r = await sb.run(['start', f, '--params', 'NAME=svc', '--run-id', 'r1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('dag-run r1 succeeded');
    const detail = await sb.json(['status', 'hello', '--json']);
    expect(detail.dagRun).toMatchObject({ dagRunId: 'r1', name: 'hello', status: 4, statusLabel: 'succeeded', params: 'NAME=svc', parentDAGRunId: '' });
    expect(detail.dagRun.nodes.map((n: any) => n.statusLabel)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(detail.dagRun.onExit).toMatchObject({ status: 4, statusLabel: 'succeeded' });
    expect(readFileSync(node(detail, 'greet').stdout, 'utf8')).toBe('hello svc\n');
    expect(readFileSync(node(detail, 'both').stdout, 'utf8')).toBe('one\n');
    expect(readFileSync(node(detail, 'both').stderr, 'utf8')).toBe('two\n');
    expect(readFileSync(detail.dagRun.onExit.stdout, 'utf8')).toBe('bye hello succeeded\n');
    const outputs = await sb.json(['outputs', 'hello']);
    expect(outputs).toEqual({
      metadata: { dagName: 'hello', dagRunId: 'r1', attemptId: expect.any(String), status: 'succeeded', completedAt: detail.dagRun.finishedAt, params: '{"NAME":"svc"}' },
      outputs: { message: 'hello svc', loudMessage: 'HELLO SVC' },
    });
  });

  test('a failing step fails the run, aborts its dependants, exits 1; continueOn makes it partial', async () => {
    const f = sb.dag('failing', `
steps:
  - name: bad
    command: exit 3
  - name: after
    command: echo never
`);
    const r = await sb.run(['start', f]);
    expect(r.code).toBe(1);
    const d = await sb.json(['status', 'failing', '--json']);
    expect(d.dagRun.statusLabel).toBe('failed');
    expect(node(d, 'bad')).toMatchObject({ statusLabel: 'failed', error: 'exit status 3' });
    expect(node(d, 'after')).toMatchObject({ statusLabel: 'aborted', error: 'upstream failed' });
    const g = sb.dag('partial', `
steps:
  - name: ok
    command: "true"
  - name: soft
    command: exit 2
    continueOn:
      exitCode: [2]
  - name: after
    command: "true"
`);
    expect((await sb.run(['start', g])).code).toBe(0);
    expect((await sb.json(['status', 'partial', '--json'])).dagRun.statusLabel).toBe('partially_succeeded');
  });

  test('retryPolicy re-runs a failing step until it succeeds', async () => {
    const f = sb.dag('retrying', `
steps:
  - name: flaky
    command: n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -ge 3 ]
    retryPolicy:
      limit: 5
      intervalSec: 0
`);
    expect((await sb.run(['start', f])).code).toBe(0);
    const d = await sb.json(['status', 'retrying', '--json']);
    expect(node(d, 'flaky')).toMatchObject({ statusLabel: 'succeeded', retryCount: 2 });
    expect(readFileSync(`${sb.dagsDir}/count`, 'utf8').trim()).toBe('3');
  });

  test('a step timeout fails the step with a clear error', async () => {
    const f = sb.dag('slow', `
steps:
  - name: sleepy
    command: sleep 20
    timeoutSec: 1
`);
    expect((await sb.run(['start', f])).code).toBe(1);
    const d = await sb.json(['status', 'slow', '--json']);
    expect(node(d, 'sleepy').error).toMatch(/timed out/);
  });

  test('preconditions skip a step (dependants skipped), run still succeeds', async () => {
    const f = sb.dag('pre', `
steps:
  - name: gated
    command: touch ran
    preconditions:
      - condition: "\`echo monday\`"
        expected: "re:^tue"
  - name: next
    command: "true"
  - name: always
    depends: []
    command: "true"
    preconditions:
      - condition: "test -d /"
`);
    expect((await sb.run(['start', f])).code).toBe(0);
    const d = await sb.json(['status', 'pre', '--json']);
    expect(node(d, 'gated').statusLabel).toBe('skipped');
    expect(node(d, 'next').statusLabel).toBe('skipped');
    expect(node(d, 'always').statusLabel).toBe('succeeded');
    expect(existsSync(`${sb.dagsDir}/ran`)).toBe(false);
  });

  test('script with a shebang runs with its interpreter; logOutput merged and stdout copies', async () => {
    const f = sb.dag('scripted', `
steps:
  - name: py
    script: |
      #!/usr/bin/env python3
      import sys
      print("from python", 6 * 7)
      print("to stderr", file=sys.stderr)
    logOutput: merged
    stdout: copy.txt
    output: PY
`);
    expect((await sb.run(['start', f])).code).toBe(0);
    const d = await sb.json(['status', 'scripted', '--json']);
    expect(node(d, 'py').stdout).toBe(node(d, 'py').stderr);
    expect(readFileSync(node(d, 'py').stdout, 'utf8')).toContain('to stderr');
    expect(readFileSync(`${sb.dagsDir}/copy.txt`, 'utf8')).toBe('from python 42\n');
    expect((await sb.json(['outputs', 'scripted'])).outputs.py).toBe('from python 42');
  });
});
