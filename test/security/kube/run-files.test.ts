/**
 * On the Kubernetes test bed with the volume log store (the chart default: every step Pod and the
 * operator mount the same directory): a step Pod replaces its own stdout log (whose text the operator
 * harvests as the step's `output:`) and another step's log with links to a secret; neither the operator's
 * harvest nor the API follows them, and nothing is appended to the secret.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeCluster } from '../../kube/env.js';
import { finished, kubeServer, start } from '../../kube/servers.js';

const SECRET = 'TOP-SECRET-kube-7d2e';

interface NodeJson { step: { name: string }; output?: string; outputs?: Record<string, string>; status: number }

describeCluster('a step Pod plants links on the shared log volume', () => {
  const srv = kubeServer();
  const secret = join(srv.dir, 'secret');
  beforeAll(async () => {
    mkdirSync(secret, { recursive: true });
    for (const name of ['first.out', 'plant.out']) writeFileSync(join(secret, name), `${SECRET}\n`);
    await srv.start();
  });
  afterAll(async () => srv.stop());

  test('the harvest captures no link target and the API serves none', async () => {
    srv.dag('kube-plant', [
      'steps:',
      '  - name: first', '    command: echo first-output',
      '  - name: plant', '    depends: [first]', '    output: LEAK', '    script: |',
      '      d=$(dirname "$DAG_RUN_STEP_STDOUT_FILE")',
      `      ln -sf "${secret}/first.out" "$d/first.out"`,
      `      ln -sf "${secret}/plant.out" "$DAG_RUN_STEP_STDOUT_FILE"`,
      '      echo planted >&2',
    ].join('\n'));
    const id = await start(srv, 'kube-plant');
    const run = await finished(srv, 'kube-plant', id, 120_000);
    const plant = (run.nodes as NodeJson[]).find((n) => n.step.name === 'plant');
    expect(JSON.stringify(run)).not.toContain(SECRET);
    expect(plant?.output ?? '').not.toContain(SECRET);
    const detail = await srv.get(`/dag-runs/kube-plant/${id}`);
    expect(detail.text).not.toContain(SECRET);
    for (const path of ['first/log', 'first/log?tail=1', 'plant/log', 'plant/log?head=1', 'plant/log?stream=stderr']) {
      const r = await srv.get(`/dag-runs/kube-plant/${id}/steps/${path}`);
      expect(r.status).toBeLessThan(500);
      expect(r.text).not.toContain(SECRET);
    }
    const outputs = await srv.get(`/dag-runs/kube-plant/${id}/outputs`);
    expect(outputs.text).not.toContain(SECRET);
    for (const name of ['first.out', 'plant.out']) expect(readFileSync(join(secret, name), 'utf8')).toBe(`${SECRET}\n`);
  }, 180_000);
});
