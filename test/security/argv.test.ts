/**
 * ATTACK: another user of the machine reads a secret (SPEC 2.4) from the command line of a process svc
 * started: /proc/<pid>/cmdline is world-readable. Each DAG below uses an `env`-provider secret in one
 * place svc expands text and hands it to a local shell (a DAG precondition, a step precondition, a
 * repeat condition, a backquote in env, a handler, a step command with `${TOKEN}` and with `$TOKEN`);
 * each such probe sleeps, so it is running while the test scans every process's cmdline. No cmdline
 * may hold the value, and the run must behave as before: the condition's outcome, the step's output,
 * masked. Through the real CLI (`svc start`), embedded backend.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Sandbox, collect, type CliResult } from '../helpers/cli.js';

const SECRET = 's3cr3t-argv-4021';
/** What a probe compares the value with: computed by the shell, so no DAG file holds the value. */
const SAME = '"s3cr3t-argv-$((4000 + 21))"';
const SECRETS = `
secrets:
  - {name: TOKEN, provider: env, key: SVC_TEST_ARGV_SRC}
`;

/** Every process's command line but this test process's own, read now (processes may end meanwhile). */
function cmdlines(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try { out.push(readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ')); } catch { /* ended */ }
  }
  return out;
}

interface Watched { result: CliResult; leaked: string[]; seen: boolean }

/** Runs `svc start` on the DAG, scanning all command lines until it ends; `marker` names the probe to see. */
async function watch(sb: Sandbox, name: string, yaml: string, marker: string): Promise<Watched> {
  const file = sb.dag(name, yaml);
  const child = sb.spawn(['start', file]);
  const done = collect(child);
  let ended = false;
  const w: Watched = { result: { code: -1, stdout: '', stderr: '' }, leaked: [], seen: false };
  const scan = (async () => {
    while (!ended) {
      for (const c of cmdlines()) {
        if (c.includes(SECRET)) w.leaked.push(c);
        if (c.includes(marker)) w.seen = true;
      }
      await new Promise((r) => setImmediate(r));
    }
  })();
  // Until the run ends (or the marker's process was seen and the run then ends): a run that ended without
  // running the probe fails below with its own output, not on a timeout.
  w.result = await done;
  ended = true;
  await scan;
  if (!w.seen) throw new Error(`no process ran ${marker}; svc start exited ${w.result.code}: ${w.result.stdout}${w.result.stderr}`);
  return w;
}

interface Node { step: { name: string }; statusLabel: string; output?: string; stdout: string }
interface Run { status: string; nodes: Node[]; onSuccess?: Node; all: string }
async function nodes(sb: Sandbox, name: string): Promise<Run> {
  const d = await sb.json<{ dagRun: { statusLabel: string; nodes: Node[]; onSuccess?: Node } }>(['status', name, '--json']);
  return { status: d.dagRun.statusLabel, nodes: d.dagRun.nodes, onSuccess: d.dagRun.onSuccess, all: JSON.stringify(d) };
}
const node = (ns: Node[], name: string): Node => ns.find((n) => n.step.name === name)!;

const sb = new Sandbox({ SVC_TEST_ARGV_SRC: SECRET });

async function attack(name: string, yaml: string, marker: string): Promise<Run> {
  const w = await watch(sb, name, SECRETS + yaml, marker);
  expect(w.leaked).toEqual([]);
  expect(w.seen).toBe(true);
  const r = await nodes(sb, name);
  expect(r.all).not.toContain(SECRET);
  return r;
}

describe('no secret in the argv of a local process (embedded)', () => {
  test('a DAG precondition that holds: the run goes on', async () => {
    const r = await attack('pre-dag', `
preconditions:
  - condition: 'sleep 1.01; test "\${TOKEN}" = ${SAME}'
steps:
  - {name: a, command: echo ran}
`, 'sleep 1.01');
    expect(r.status).toBe('succeeded');
    expect(node(r.nodes, 'a').statusLabel).toBe('succeeded');
  });

  test('step preconditions: the one that fails skips its step, the one that holds runs it', async () => {
    const r = await attack('pre-step', `
type: graph
steps:
  - name: yes
    command: echo ran
    preconditions:
      - condition: 'sleep 1.03; test "\${TOKEN}" = ${SAME}'
  - name: no
    command: echo never
    preconditions:
      - condition: 'sleep 1.02; test "\${TOKEN}" = wrong'
`, 'sleep 1.02');
    expect(node(r.nodes, 'no').statusLabel).toBe('skipped');
    expect(node(r.nodes, 'yes').statusLabel).toBe('succeeded');
  });

  test('a repeat condition (DAG shell bash): repeats until it holds', async () => {
    const r = await attack('repeat', `
shell: /bin/bash
steps:
  - name: r
    command: echo round
    repeatPolicy:
      repeat: until
      condition: 'sleep 1.04; test "\${TOKEN}" = ${SAME}'
      intervalSec: 0
      limit: 3
`, 'sleep 1.04');
    expect(node(r.nodes, 'r').statusLabel).toBe('succeeded');
  });

  test('a backquote in a step env: its output is the value of the variable', async () => {
    const r = await attack('backquote', `
steps:
  - name: a
    command: 'echo "check=$CHECK"'
    output: OUT
    env:
      - CHECK: '\`sleep 1.05; test "\${TOKEN}" = ${SAME} && echo yes\`'
`, 'sleep 1.05');
    expect(node(r.nodes, 'a').output).toBe('check=yes');
  });

  test('a handler step', async () => {
    const r = await attack('handler', `
handlerOn:
  success:
    command: 'sleep 1.06; test "\${TOKEN}" = ${SAME} && echo "handled \${TOKEN}"'
steps:
  - {name: a, command: echo ran}
`, 'sleep 1.06');
    expect(r.status).toBe('succeeded');
    const log = readFileSync(r.onSuccess!.stdout, 'utf8');
    expect(log).toMatch(/^handled \*+\n$/);
  });

  test.each([['braces', '${TOKEN}', '1.07'], ['plain', '$TOKEN', '1.08']])('a step command with %s', async (name, ref, n) => {
    const r = await attack(`cmd-${name}`, `
steps:
  - name: a
    command: 'sleep ${n}; test "${ref}" = ${SAME} && echo "got ${ref}"'
    output: OUT
`, `sleep ${n}`);
    expect(node(r.nodes, 'a').statusLabel).toBe('succeeded');
    expect(node(r.nodes, 'a').output).toMatch(/^got \*+$/);
  });
});
