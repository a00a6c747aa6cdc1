/**
 * One size limit for a DAG spec (MAX_SPEC_BYTES, core): the CLI refuses what the API refuses and accepts
 * what it accepts (issue 20: the CLI ran an 8 MB spec the API refused).
 */
import { MAX_SPEC_BYTES } from '../../src/core/spec/limits.js';
import { Sandbox } from '../helpers/cli.js';
import { TestServer } from '../helpers/server.js';

/** A valid DAG of exactly `bytes` bytes (a comment pads it). */
function specOf(bytes: number): string {
  const head = 'steps:\n  - name: a\n    command: echo sized\n#';
  return `${head}${'x'.repeat(bytes - head.length - 1)}\n`;
}

const sb = new Sandbox();
const srv = new TestServer();
beforeAll(() => srv.start());
afterAll(() => srv.stop());

describe('a spec at the limit: accepted by the CLI and the API', () => {
  const spec = specOf(MAX_SPEC_BYTES);

  test('svc validate, svc kube manifest and svc start', async () => {
    const file = sb.dag('at-limit', spec);
    expect((await sb.run(['validate', file])).code).toBe(0);
    expect((await sb.run(['kube', 'manifest', file])).stdout).toContain('kind: Dag');
    const started = await sb.run(['start', file]);
    expect(started.stdout).toContain('succeeded');
  });

  test('POST /dags/validate, POST /dags, POST /dag-runs', async () => {
    expect((await srv.post('/dags/validate', { spec })).body.valid).toBe(true);
    expect((await srv.post('/dags', { name: 'at_limit', spec })).status).toBe(201);
    expect((await srv.post('/dag-runs', { spec, name: 'inline-at-limit' })).status).toBe(200);
  });
});

// 8 MB is also over the 5 MB a request body may have: the API refuses it before reading it (413).
describe.each([['one byte over the limit', MAX_SPEC_BYTES + 1, 400], ['8 MB', 8 * 1024 * 1024, 413]])('a spec %s: refused by both', (_what, bytes, status) => {
  const spec = specOf(bytes);

  test('svc validate, svc start and svc kube manifest: exit 1 with the limit named, nothing run or printed', async () => {
    const file = sb.dag(`over-${bytes}`, spec);
    for (const cmd of [['validate'], ['start'], ['kube', 'manifest']]) {
      const r = await sb.run([...cmd, file]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`larger than the ${MAX_SPEC_BYTES} bytes (512 KiB) a DAG spec may have`);
      expect(r.stdout).not.toContain('started');
    }
  });

  test.each([['/dags/validate', {}], ['/dags', { name: 'over' }], ['/dag-runs', { name: 'inline-over' }]])('POST %s: refused, bad_request', async (path, extra) => {
    const r = await srv.post(path, { ...extra, spec });
    expect(r.status).toBe(status);
    expect(r.body.code).toBe('bad_request');
  });
});
