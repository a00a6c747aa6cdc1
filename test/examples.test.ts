/** Every example DAG loads and validates, and runs to success with the real CLI. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDagText } from '../src/core/spec/load.js';
import { ROOT, Sandbox } from './helpers/cli.js';

const dir = join(ROOT, 'examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('examples', () => {
  test('there are examples', () => expect(files.length).toBeGreaterThanOrEqual(6));

  test.each(files)('%s loads without errors', (f) => {
    const loaded = loadDagText(readFileSync(join(dir, f), 'utf8'), { fileName: f.replace(/\.yaml$/, '') });
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag?.steps.length).toBeGreaterThan(0);
  });

  const sb = new Sandbox({ SVC_REPORT_TOKEN: 'example-token-value' });
  /** Everything the runs stored: status, logs, outputs.json, run logs. */
  const stored = (): string => readdirSync(sb.dataDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile()).map((e) => readFileSync(join(e.parentPath, e.name), 'utf8')).join('\n');

  test.each(files)('%s runs to success, and no secret reaches what it stores', async (f) => {
    const r = await sb.run(['start', join(dir, f)]);
    expect({ file: f, code: r.code, out: r.stdout, err: r.stderr }).toMatchObject({ code: 0 });
    expect(`${r.stdout}${r.stderr}${stored()}`).not.toContain('example-token-value');
  });

  test('the secrets example used its token: the log shows it masked', () => {
    expect(stored()).toContain('sending report with token *******');
  });
});
