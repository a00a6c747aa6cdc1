/** `svc validate` of a DAG file whose aliases expand past the budget: invalid, the budget named, a small answer. */
import { Sandbox } from '../helpers/cli.js';

const LAUGHS = [`description: &big "${'l'.repeat(100_000)}"`, 'steps:', ...Array.from({ length: 400 }, (_, i) => `  - { name: s${i}, command: *big }`)].join('\n');

test('svc validate refuses an over-budget DAG file, naming the budget, without printing its expansion', async () => {
  const sb = new Sandbox();
  const r = await sb.run(['validate', sb.dag('laughs', LAUGHS)]);
  expect(r.code).not.toBe(0);
  expect(`${r.stdout}${r.stderr}`).toMatch(/expands to more than \d+ bytes \(the expansion budget of a DAG spec\)/);
  expect(r.stdout.length + r.stderr.length).toBeLessThan(64 * 1024);
});
