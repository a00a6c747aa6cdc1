/**
 * ATTACK: a secret's value (SPEC 2.4) leaking where a reader of runs, logs or the data directory sees it.
 * A DAG with an `env`-provider secret calls a sub-DAG with `params: P=${SECRET}`; the child must get the
 * value (its step checks it) while the child's stored spec, the caller's `subRuns[].params`, the step
 * logs, outputs and every file of the data directory hold only a reference or a mask. Two overlapping
 * secrets printed together are masked whole. Through REST on the real server (embedded).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer, eventually } from '../helpers/server.js';

const SECRET = 'the-secret-value-4217';
const OVER_A = 'abcdef-ovl';
const OVER_B = 'ef-ovl-ghij';
const QUOTED = 'q"u\\o\nte-val';
const VALUES = [SECRET, OVER_A, OVER_B, QUOTED];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    const st = statSync(p);
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [p] : [];
  });
}

// The DAG files hold none of the values: the child checks the value it gets by computing it.

/** Every form a reader could see a value in: as is, JSON-escaped, and each line of one with newlines. */
function leaks(text: string): string[] {
  return VALUES.filter((v) => [v, JSON.stringify(v).slice(1, -1), ...v.split('\n').filter((l) => l.length > 5)].some((f) => text.includes(f)));
}

interface Node { step: { name: string }; subRuns: Array<{ dagRunId: string; params: string }> }
interface RunDetail { status: number; nodes: Node[] }
const node = (run: RunDetail, name: string): Node => run.nodes.find((n) => n.step.name === name)!;

const srv = new TestServer({ SVC_TEST_SECRET_SRC: SECRET, SVC_TEST_OVER_A: OVER_A, SVC_TEST_OVER_B: OVER_B, SVC_TEST_QUOTED: QUOTED });

beforeAll(async () => {
  srv.dag('sec-child', `
params:
  - P: none
  - Q: none
steps:
  - name: use
    command: sh -c 'test "$P" = "the-secret-value-$((4200 + 17))" && echo "child got $P and $Q"'
    output: GOT
`);
  srv.dag('sec-parent', `
secrets:
  - name: SECRET
    provider: env
    key: SVC_TEST_SECRET_SRC
  - name: OVA
    provider: env
    key: SVC_TEST_OVER_A
  - name: OVB
    provider: env
    key: SVC_TEST_OVER_B
  - name: QUOTED
    provider: env
    key: SVC_TEST_QUOTED
steps:
  - name: call
    call: sec-child
    params: "P=\${SECRET} Q=\${OVA}"
  - name: overlap
    command: sh -c 'echo "x \${OVA}-ghij y"'
    output: OVL
  - name: quoted
    command: sh -c 'printf "%s\\n" "$QUOTED"'
`);
  await srv.start();
});
afterAll(() => srv.stop());

describe('secrets by reference, never stored', () => {
  let parent: RunDetail;
  let childId = '';

  beforeAll(async () => {
    await srv.post('/dags/sec-parent/start', { dagRunId: 'sec-1' });
    parent = await eventually(async () => {
      const r = await srv.get<{ dagRun?: RunDetail }>('/dag-runs/sec-parent/sec-1');
      const run = r.body?.dagRun;
      return run && run.status >= 2 && run.status !== 5 && run;
    }, 'the parent run ends', 60_000);
    childId = node(parent, 'call').subRuns[0]!.dagRunId;
  }, 90_000);

  it('the child got the value and the run succeeded', () => {
    expect(parent.status).toBe(4);
  });

  it("the parent's run detail (subRuns[].params) holds a reference, not the value", async () => {
    const r = await srv.get<{ dagRun: RunDetail }>('/dag-runs/sec-parent/sec-1');
    expect(leaks(r.text)).toEqual([]);
    expect(node(r.body.dagRun, 'call').subRuns[0]!.params).toContain('${SECRET}');
    expect((await srv.get('/dag-runs/sec-parent/sec-1/sub-dag-runs')).text).not.toContain(SECRET);
  });

  it("the child's run detail and spec endpoint hold no value", async () => {
    const detail = await srv.get(`/dag-runs/sec-child/${childId}`);
    expect(detail.status).toBe(200);
    expect(leaks(detail.text)).toEqual([]);
    const spec = await srv.get(`/dag-runs/sec-parent/sec-1/sub-dag-runs/${childId}/spec`);
    expect(spec.status).toBe(200);
    expect(leaks(spec.text)).toEqual([]);
  });

  it('the step logs and outputs are masked', async () => {
    const call = await srv.get('/dag-runs/sec-parent/sec-1/steps/call/log');
    expect(call.status).toBe(200);
    expect(leaks(call.text)).toEqual([]);
    const child = await srv.get(`/dag-runs/sec-child/${childId}/steps/use/log`);
    expect(child.text).toContain('child got *******');
    expect(leaks(child.text)).toEqual([]);
    for (const path of ['/dag-runs/sec-parent/sec-1/outputs', `/dag-runs/sec-child/${childId}/outputs`, '/dag-runs/sec-parent/sec-1/log', `/dag-runs/sec-child/${childId}/log`]) {
      expect(leaks((await srv.get(path)).text)).toEqual([]);
    }
  });

  it('overlapping secrets in one output are masked whole', async () => {
    const r = await srv.get('/dag-runs/sec-parent/sec-1/steps/overlap/log');
    expect(r.text).toContain('x ******* y');
    for (const part of ['abc', 'ghij', '-ovl']) expect(r.text).not.toContain(part);
  });

  it('a secret with a quote, backslash and newline is masked', async () => {
    const r = await srv.get('/dag-runs/sec-parent/sec-1/steps/quoted/log');
    expect(r.text).toContain('*******');
    expect(leaks(r.text)).toEqual([]);
  });

  it('no file of the data directory holds a value', () => {
    const found = filesUnder(srv.dataDir).filter((f) => leaks(readFileSync(f, 'latin1')).length > 0 || leaks(readFileSync(f, 'utf8')).length > 0);
    expect(found).toEqual([]);
  });
});
