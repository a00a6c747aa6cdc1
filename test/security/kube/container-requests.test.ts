/**
 * ATTACK (Kubernetes): whoever may read the shared data volume (another run's step, a backup of the claim,
 * anyone with a Pod mounting it) reads a secret (SPEC 2.4) from the request file the operator writes for a
 * step of a DAG-level `container`: it held the step's env, the commands svc expanded and the mask list,
 * values included. The run's container Pod must get the values through a Secret of the run (secretKeyRef),
 * each request only references to them, and the step must still see the values, masked in its output.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../helpers/server.js';
import { describeCluster } from '../../kube/env.js';
import { finished, kubeServer, podsOf, start } from '../../kube/servers.js';
import { kubectl } from '../../testbed/helpers.js';
import { loadConfig } from '../../../src/config/config.js';
import { consoleLogger } from '../../../src/observability/console-logger.js';

const TOKEN = 'agent-request-secret-4471';
const NASTY = 'agent"re\\q\nuest-8123';
const sha = (v: string): string => createHash('sha256').update(v).digest('hex');

/** Every form in which a value could be read off a file or a Pod: as is, JSON-escaped, each longer line. */
const forms = (v: string): string[] => [v, JSON.stringify(v).slice(1, -1), ...v.split('\n').filter((l) => l.length > 5)];
const leaks = (text: string, values: string[]): string[] => values.filter((v) => forms(v).some((f) => text.includes(f)));

/** Files of the data volume that held a value at any moment (a request is removed once read: each is read as it changes). */
function volumeWatch(dir: string, values: string[]): { close(): void; scan(): void; found: Set<string> } {
  const found = new Set<string>();
  const look = (file: string): void => {
    try {
      if (leaks(readFileSync(file, 'utf8'), values).length > 0) found.add(file);
    } catch { /* gone already, or a directory */ }
  };
  const scan = (d = dir): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p, { throwIfNoEntry: false })?.isDirectory()) scan(p);
      else look(p);
    }
  };
  const w: FSWatcher = watch(dir, { recursive: true }, (_e, name) => { if (name) look(join(dir, name.toString())); });
  return { close: () => w.close(), scan: () => scan(), found };
}

describeCluster('ATTACK: secrets in the request files of a DAG-level container\'s agent', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  const dir = mkdtempSync(join(tmpdir(), 'svc-agent-req-'));
  const fileOf = (name: string, value: string): string => {
    writeFileSync(join(dir, name), `${value}\n`);
    return join(dir, name);
  };
  let volume: ReturnType<typeof volumeWatch>;
  beforeAll(async () => {
    await srv.start();
    volume = volumeWatch(srv.dataDir, [TOKEN, NASTY]);
  });
  afterAll(async () => {
    volume.close();
    await srv.stop();
  });

  test('env and commands holding secrets: no file of the volume, no Pod spec holds them; the step sees them masked', async () => {
    srv.dag('boxed-secret', [
      'secrets:',
      `  - { name: TOKEN, provider: file, key: ${fileOf('token', TOKEN)} }`,
      `  - { name: NASTY, provider: file, key: ${fileOf('nasty', NASTY)} }`,
      'container: { image: "debian:stable-slim" }',
      'steps:',
      '  - name: use',
      '    env:',
      '      - COPY: ${TOKEN}',
      '      - ODD: ${NASTY}',
      // The command holds the expanded value (svc expands ${TOKEN}); the hashes (printenv: value and a newline) prove the step got both.
      '    command: sh -c \'sleep 1; echo "token ${TOKEN}"; printenv COPY | sha256sum; printenv ODD | sha256sum; env | grep -c SVC_SECRET_REF_ || true\'',
    ].join('\n'));
    const id = await start(srv, 'boxed-secret');
    const ns = srv.server.namespace!;
    const pod = await eventually(async () => (await podsOf(ns, `svc.io/component=run-container,svc.io/dag-run=${id}`))[0], 'the run container Pod', 60_000);
    const run = await finished(srv, 'boxed-secret', id, 180_000);
    volume.scan();
    const out = (await srv.get(`/dag-runs/boxed-secret/${id}/steps/use/log?stream=stdout`)).body.content as string;
    const err = (await srv.get(`/dag-runs/boxed-secret/${id}/steps/use/log?stream=stderr`)).body.content as string;
    const use = run.nodes.find((n: { step: { name: string } }) => n.step.name === 'use');
    expect({ status: use.statusLabel, error: use.error ?? '', out, err }).toEqual({ status: 'succeeded', error: '', out: expect.any(String), err: '' });
    // The step got the values, masked in its output; the agent's reference variables are not its own.
    expect(out.split('\n')).toEqual(['token *******', `${sha(`${TOKEN}\n`)}  -`, `${sha(`${NASTY}\n`)}  -`, '0']);
    expect([...volume.found]).toEqual([]);
    expect(leaks(JSON.stringify(pod), [TOKEN, NASTY])).toEqual([]);
    const env = pod.spec.containers[0].env as { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
    const refs = env.filter((e) => e.valueFrom?.secretKeyRef);
    expect(refs.length).toBeGreaterThan(0);
    // The run's Secret holds the values while its Pod may start, and goes when the run ends.
    const secretName = refs[0]!.valueFrom!.secretKeyRef!.name;
    await eventually(async () => ((await kubectl(['get', 'secret', secretName, '-n', ns])).code !== 0) || undefined, 'the run\'s Secret to be deleted');
  }, 240_000);
});

describeCluster('ATTACK: secret references of a run container after an operator restart', () => {
  const srv = kubeServer();
  const dir = mkdtempSync(join(tmpdir(), 'svc-agent-restart-'));
  let volume: ReturnType<typeof volumeWatch>;
  beforeAll(async () => {
    await srv.start();
    volume = volumeWatch(srv.dataDir, [TOKEN]);
  });
  afterAll(async () => {
    volume.close();
    await srv.stop();
  });

  /**
   * The operator closed and a new one started, as after a restart; the old one leaves the Pods be. (Which
   * one asks for the next step is not observable here: the read-back itself is run-secret.test.ts's.)
   */
  const restart = async (): Promise<void> => {
    await srv.operator!.close();
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh', SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: srv.dataDir, SVC_DAGS_DIR: srv.dagsDir, ...(await srv.kube!.env()) };
    srv.operator = await srv.kube!.operator(loadConfig(env), env, consoleLogger('error'));
  };

  test('across an operator restart, the next step still gets the value, by reference only', async () => {
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
    srv.dag('boxed-restart', [
      'secrets:', `  - { name: TOKEN, provider: file, key: ${join(dir, 'token')} }`,
      'container: { image: "debian:stable-slim" }',
      'steps:',
      `  - name: first`, `    command: sh -c 'touch ${dir}/up; while [ ! -f ${dir}/go ]; do sleep 0.1; done'`,
      '  - name: second', '    depends: [first]', '    env:', '      - COPY: ${TOKEN}',
      '    command: sh -c \'echo "two ${TOKEN}"; printenv COPY | sha256sum\'',
    ].join('\n'));
    const id = await start(srv, 'boxed-restart');
    // (Its output is held back by the masker until it is longer than a secret: a file says it started.)
    await eventually(async () => existsSync(join(dir, 'up')) || undefined, 'the first step to start', 60_000);
    await restart();
    writeFileSync(join(dir, 'go'), '');
    const run = await finished(srv, 'boxed-restart', id, 120_000);
    volume.scan();
    const out = (await srv.get(`/dag-runs/boxed-restart/${id}/steps/second/log?stream=stdout`)).body.content as string;
    expect({ status: run.statusLabel, out }).toEqual({ status: 'succeeded', out: `two *******\n${sha(`${TOKEN}\n`)}  -` });
    expect([...volume.found]).toEqual([]);
  }, 240_000);
});
