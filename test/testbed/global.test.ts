/**
 * `npm test` on a fresh machine (issue 20, item 11): without the test bed's binaries (hack/testbed.d/build.sh
 * caches them under SVC_TESTBED_CACHE, default ~/.cache/svc-testbed) the global setup skips the cluster
 * tests loudly and succeeds; under CI=true it fails instead, so nothing skips there. The setup runs in a
 * child process with an empty cache, as on a fresh clone: it sets process.env for the jest run, and this
 * run's own test bed (when there is one) must not be touched.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const GLOBAL = path.join(HERE, 'global.js');
const REASON = 'the Kubernetes test bed binaries are not built: run `hack/testbed build` (about 10 minutes once), or set SVC_TEST_KUBECONFIG to use an existing cluster';

/** setup() then teardown(), as jest calls them; what the setup left in the environment, or why it failed. */
const SCRIPT = `
const m = await import(process.env.GLOBAL_JS);
try { await m.setup(); } catch (e) { process.stdout.write(JSON.stringify({ failed: e.message })); process.exit(1); }
const left = { skip: process.env.SVC_TESTBED_SKIP ?? null, kubeconfig: process.env.SVC_TEST_KUBECONFIG ?? null };
await m.teardown();
process.stdout.write(JSON.stringify(left));
`;

const empty = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-fresh-'));

function globalSetup(env: Record<string, string>) {
  // Only what a fresh shell would have: no SVC_TEST_KUBECONFIG, no CI unless given.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], {
    encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', GLOBAL_JS: GLOBAL, ...env },
  });
  return { code: r.status, stderr: r.stderr, result: JSON.parse(r.stdout || '{}') as { skip?: string | null; kubeconfig?: string | null; failed?: string } };
}

describe('the test bed\'s global setup without its binaries', () => {
  test('outside CI (the default cache under an empty HOME): a loud skip, the reason for the tests, success', () => {
    const home = empty();
    const r = globalSetup({ HOME: home });
    expect(r.code).toBe(0);
    expect(r.result).toEqual({ skip: REASON, kubeconfig: null });
    const bar = '!'.repeat(100);
    expect(r.stderr).toContain(`${bar}\nSKIPPING the Kubernetes test bed tests: ${REASON}\n${bar}`);
    // It looked where build.sh caches, and built or started nothing.
    expect(fs.readdirSync(home)).toEqual([]);
  });

  test('SVC_TESTBED_CACHE names the cache: an empty one skips the same way', () => {
    const cache = empty();
    const r = globalSetup({ HOME: empty(), SVC_TESTBED_CACHE: cache });
    expect([r.code, r.result.skip]).toEqual([0, REASON]);
    expect(fs.readdirSync(cache)).toEqual([]);
  });

  test('under CI=true: the setup fails with the reason, and nothing is marked skipped', () => {
    const r = globalSetup({ HOME: empty(), SVC_TESTBED_CACHE: empty(), CI: 'true' });
    expect(r.code).toBe(1);
    expect(r.result).toEqual({ failed: `CI: ${REASON}` });
    expect(r.stderr).not.toContain('SKIPPING');
  });
});

describe('test/api-kube.skip.js: what the skip reason does to the REST suites on the kubernetes backend', () => {
  const source = fs.readFileSync(path.join(HERE, '../api-kube.skip.js'), 'utf8');

  /** The setup file run in a context of its own; which of describe/test/it it left as they were. */
  function afterSkipFile(env: Record<string, string>) {
    const skip = (): void => undefined;
    const context = vm.createContext({ process: { env } });
    for (const name of ['describe', 'test', 'it']) context[name] = Object.assign(() => name, { skip });
    new vm.Script(source).runInContext(context);
    return ['describe', 'test', 'it'].map((name) => (context[name] === skip ? 'skipped' : 'runs'));
  }

  test('SVC_TESTBED_SKIP set: describe, test and it are skipped, so the suites report skips, not failures', () => {
    expect(afterSkipFile({ SVC_TESTBED_SKIP: REASON })).toEqual(['skipped', 'skipped', 'skipped']);
  });

  test('a test bed (or CI, where the setup fails before): every test runs', () => {
    expect(afterSkipFile({})).toEqual(['runs', 'runs', 'runs']);
  });
});
