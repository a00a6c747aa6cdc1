import { Sandbox } from '../helpers/cli.js';

const node = (detail: any, name: string) => detail.dagRun.nodes.find((n: any) => n.step.name === name);

describe('sub-DAGs, parallel and repeat', () => {
  const sb = new Sandbox();

  test('a local sub-DAG runs as a child run with params, parent/root refs, and its outputs come back', async () => {
    const f = sb.dag('parent', `
steps:
  - name: call-child
    call: child
    params: "WHO=ada"
    output: CHILD
  - name: use
    command: echo "got \${CHILD.outputs.greeting}"
    output: FINAL
---
name: child
params:
  - WHO: nobody
steps:
  - name: greet
    command: echo "hi $WHO"
    output: GREETING
`);
    const r = await sb.run(['start', f, '--run-id', 'p1']);
    expect(r.code).toBe(0);
    const d = await sb.json(['status', 'parent', '--json']);
    const sub = node(d, 'call-child').subRuns;
    expect(sub).toHaveLength(1);
    expect(sub[0]).toMatchObject({ name: 'child', params: 'WHO=ada', status: 4, statusLabel: 'succeeded' });
    expect((await sb.json(['outputs', 'parent'])).outputs.final).toBe('got hi ada');
    const child = await sb.json(['status', 'child', '--run-id', sub[0].dagRunId, '--json']);
    expect(child.dagRun).toMatchObject({ parentDAGRunName: 'parent', parentDAGRunId: 'p1', rootDAGRunName: 'parent', rootDAGRunId: 'p1' });
  });

  test('parallel calls run one child per item with ITEM, and a failing item fails the step', async () => {
    const f = sb.dag('fanout', `
steps:
  - name: each
    call: worker
    parallel:
      items: [a, b, c]
      maxConcurrent: 2
    params: "X=\${ITEM}"
---
name: worker
params:
  - X: ""
steps:
  - name: work
    command: test "$X" != c
`);
    expect((await sb.run(['start', f])).code).toBe(1);
    const d = await sb.json(['status', 'fanout', '--json']);
    const each = node(d, 'each');
    expect(each.statusLabel).toBe('failed');
    expect(each.subRuns.map((s: any) => s.params).sort()).toEqual(['X=a', 'X=b', 'X=c']);
    expect(each.subRuns.filter((s: any) => s.statusLabel === 'failed')).toHaveLength(1);
  });

  test('repeatPolicy until a condition on the output matches', async () => {
    const f = sb.dag('repeater', `
steps:
  - name: count
    command: n=$(cat n 2>/dev/null || echo 0); n=$((n+1)); echo $n > n; echo $n
    output: N
    repeatPolicy:
      repeat: until
      condition: "\${N}"
      expected: "3"
      intervalSec: 0
      limit: 10
`);
    expect((await sb.run(['start', f])).code).toBe(0);
    const d = await sb.json(['status', 'repeater', '--json']);
    expect(node(d, 'count')).toMatchObject({ statusLabel: 'succeeded', doneCount: 3 });
  });
});
