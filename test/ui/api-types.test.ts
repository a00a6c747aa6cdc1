/** src/ui/api/schema.generated.ts is what hack/gen-ui-api.mjs makes of api/openapi.yaml today. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './browser';

test('the UI API types match api/openapi.yaml (run `node hack/gen-ui-api.mjs` when this fails)', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'hack/gen-ui-api.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8' });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
}, 60_000);
