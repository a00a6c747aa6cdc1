/**
 * ATTACK (Kubernetes): anyone who may read Pods (`kubectl get pod -o yaml`, a namespace viewer) reads a
 * secret (SPEC 2.4) that svc put in a step Pod's spec: expanded into a container step's command (the Pod's
 * args), into a precondition's command (its probe Pod), or left a plain env value because its JSON form
 * escaped `"`, `\` or a newline. The values must reach the Pods only through the execution's Secret, and
 * the step must still see them. A `file` secret read by a probe must not be in the log store either.
 */
import { mkdtempSync, readFileSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCluster } from '../../kube/env.js';
import { finished, kubeServer, podsOf, start, type PodJson } from '../../kube/servers.js';

const PLAIN = 'kube-secret-value-5531';
const NASTY = 'q"u\\o\nte-kube-7789';
const FILE_SECRET = 'file-secret-content-3307';

/** Every form in which a value could be read off a Pod: as is, JSON-escaped, each longer line of it. */
const forms = (v: string): string[] => [v, JSON.stringify(v).slice(1, -1), ...v.split('\n').filter((l) => l.length > 5)];
const leaks = (text: string, values: string[]): string[] => values.filter((v) => forms(v).some((f) => text.includes(f)));

/**
 * Every file of the log store that held a value at any moment: a probe's output is removed once read, so
 * each file is read as soon as it changes (inotify), not only at the end.
 */
function logStoreWatch(dir: string, values: string[]): { close(): void; found: Set<string> } {
  const found = new Set<string>();
  const look = (file: string): void => {
    try {
      if (leaks(readFileSync(file, 'utf8'), values).length > 0) found.add(file);
    } catch { /* gone already, or a directory */ }
  };
  const w: FSWatcher = watch(dir, { recursive: true }, (_e, name) => { if (name) look(join(dir, name.toString())); });
  return { close: () => w.close(), found };
}

describeCluster('secrets never in a step Pod\'s spec', () => {
  const srv = kubeServer({ SVC_POD_RETENTION: 'all' });
  // On Kubernetes the operator's environment is not the `env` provider's: every secret here is a file, read
  // by a probe Pod where the steps run (the test bed's Pods run on this host).
  const dir = mkdtempSync(join(tmpdir(), 'svc-kube-secret-'));
  const fileOf = (name: string, value: string): string => {
    writeFileSync(join(dir, name), `${value}\n`);
    return join(dir, name);
  };
  let store: ReturnType<typeof logStoreWatch>;
  beforeAll(async () => {
    await srv.start();
    store = logStoreWatch(srv.dataDir, [FILE_SECRET, PLAIN, NASTY]);
  });
  afterAll(async () => {
    store.close();
    await srv.stop();
  });

  test('container-step and precondition commands: the Pods hold no value, the steps see them', async () => {
    srv.dag('kube-secrets', [
      'secrets:',
      `  - { name: PLAIN, provider: file, key: ${fileOf('plain', PLAIN)} }`,
      `  - { name: NASTY, provider: file, key: ${fileOf('nasty', NASTY)} }`,
      `  - { name: FILED, provider: file, key: ${fileOf('filed', FILE_SECRET)} }`,
      'steps:',
      '  - name: ctr',
      '    container: { image: "alpine:3.20" }',
      // Expanded by svc (a container step's command is not left to a shell): the values are in the command.
      '    command: sh -c \'test "${PLAIN}" = "kube-secret-value-$((5500 + 31))" && test "${FILED}" = "file-secret-content-$((3300 + 7))" && echo "ctr ok ${PLAIN}"\'',
      '  - name: guarded',
      '    preconditions:',
      '      - condition: test "${PLAIN}" = "kube-secret-value-$((5500 + 31))"',
      '    command: echo "guarded ran"',
      '  - name: request',
      '    type: jq',
      '    command: .v',
      '    script: \'{"v": "${NASTY}"}\'',
      '    continueOn: { failure: true }',
    ].join('\n'));
    const id = await start(srv, 'kube-secrets');
    const run = await finished(srv, 'kube-secrets', id, 180_000);
    const node = (n: string) => run.nodes.find((x: { step: { name: string } }) => x.step.name === n);
    expect(node('ctr').statusLabel).toBe('succeeded');
    expect(node('guarded').statusLabel).toBe('succeeded');
    expect((await srv.get(`/dag-runs/kube-secrets/${id}/steps/ctr/log?stream=stdout`)).body.content).toBe('ctr ok *******');

    const pods: PodJson[] = await podsOf(srv.server.namespace!);
    const labels = pods.map((p) => p.metadata.labels['svc.io/step']);
    expect(labels).toEqual(expect.arrayContaining(['ctr', 'request']));
    expect(labels.some((l) => l?.startsWith('guarded.pre'))).toBe(true);
    for (const pod of pods) {
      const c = pod.spec.containers[0];
      const plainEnv = (c.env ?? []).map((e: { value?: string }) => e.value ?? '').join('\n');
      const parts = [JSON.stringify(c.command ?? []), JSON.stringify(c.args ?? []), plainEnv, JSON.stringify(pod.metadata), JSON.stringify(pod)];
      expect({ pod: pod.metadata.name, leaks: parts.flatMap((t) => leaks(t, [PLAIN, NASTY, FILE_SECRET])) }).toEqual({ pod: pod.metadata.name, leaks: [] });
    }
    const ctr = pods.find((p) => p.metadata.labels['svc.io/step'] === 'ctr')!;
    expect(ctr.spec.containers[0].env.find((e: { name: string }) => e.name === 'SVC_COMMANDS').valueFrom?.secretKeyRef).toBeDefined();
  }, 240_000);

  test('the probe that read the file secret wrote no value to the log store, even for a moment', () => {
    expect([...store.found]).toEqual([]);
  });
});
