/**
 * One Kubernetes test bed per jest run, shared by every project whose globalSetup/globalTeardown point at
 * test/testbed/global-setup.js / global-teardown.js (reference-counted, so it starts once and stops last).
 *
 * - SVC_TEST_KUBECONFIG set: the tests use that cluster (an existing test bed, kind, ...); nothing starts.
 * - otherwise: `hack/testbed up` in a fresh temp dir, with the cached binaries (hack/testbed.d/build.sh).
 *   Binaries absent: outside CI the tests skip loudly (SVC_TESTBED_SKIP holds the reason); under CI=true
 *   the setup fails.
 * Afterwards tests read: SVC_TEST_KUBECONFIG (kubeconfig), SVC_TESTBED_STATE (state.json of a test bed,
 * when the cluster is one), SVC_TESTBED_SKIP (why the cluster tests skip).
 * SVC_TESTBED_KEEP=1 keeps the test bed's directory (logs) after the run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const KEY = Symbol.for('svc.testbed.jest');

function loud(msg) {
  const bar = '!'.repeat(100);
  process.stderr.write(`\n${bar}\n${msg}\n${bar}\n`);
}

export async function setup() {
  const shared = (globalThis[KEY] ??= { refs: 0 });
  shared.refs++;
  if (shared.refs > 1) return;
  const external = process.env.SVC_TEST_KUBECONFIG;
  if (external) {
    const state = path.join(path.dirname(path.resolve(external)), 'state.json');
    if (fs.existsSync(state)) process.env.SVC_TESTBED_STATE = state;
    process.stderr.write(`\n[testbed] using the existing cluster of SVC_TEST_KUBECONFIG=${external}\n`);
    return;
  }
  const check = spawnSync('bash', [path.join(root, 'hack/testbed.d/build.sh'), '--check'], { encoding: 'utf8' });
  if (check.status !== 0) {
    const reason = 'the Kubernetes test bed binaries are not built: run `hack/testbed build` (about 10 minutes once), or set SVC_TEST_KUBECONFIG to use an existing cluster';
    if (process.env.CI === 'true') throw new Error(`CI: ${reason}`);
    loud(`SKIPPING the Kubernetes test bed tests: ${reason}`);
    process.env.SVC_TESTBED_SKIP = reason;
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-jest-'));
  const t0 = Date.now();
  const out = execFileSync('bash', [path.join(root, 'hack/testbed'), 'up', '--dir', dir, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, SVC_TESTBED_BIN: check.stdout.trim() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const state = JSON.parse(out.trim().split('\n').pop());
  shared.dir = dir;
  process.env.SVC_TEST_KUBECONFIG = state.kubeconfig;
  process.env.SVC_TESTBED_STATE = path.join(dir, 'state.json');
  process.stderr.write(`\n[testbed] up in ${((Date.now() - t0) / 1000).toFixed(1)}s (kubernetes ${state.versions.kubernetes}, etcd ${state.versions.etcd}) at ${dir}\n`);
}

export async function teardown() {
  const shared = globalThis[KEY];
  if (!shared || --shared.refs > 0 || !shared.dir) return;
  const keep = process.env.SVC_TESTBED_KEEP === '1';
  spawnSync('bash', [path.join(root, 'hack/testbed'), 'down', '--dir', shared.dir, ...(keep ? ['--keep'] : [])], { stdio: 'inherit' });
  if (keep) process.stderr.write(`[testbed] kept ${shared.dir} (logs under logs/)\n`);
  delete process.env.SVC_TEST_KUBECONFIG;
  delete process.env.SVC_TESTBED_STATE;
  shared.dir = undefined;
}
