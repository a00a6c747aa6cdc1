/** kubectl exec and kubectl logs through the API server's proxy to the agents' kubelet endpoints. */
import { createNamespace, createPod, deleteNamespace, describeCluster, kubectl, sh, waitPhase } from './helpers.js';

describeCluster('exec and logs through the API server', () => {
  let ns = '';
  beforeAll(async () => {
    ns = await createNamespace('exec');
    await createPod(ns, { metadata: { name: 'long' }, spec: { containers: [sh('main', 'i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.2; done', { env: [{ name: 'FLAVOUR', value: 'mint' }] })] } });
    await waitPhase(ns, 'long', ['Running']);
  });
  afterAll(() => deleteNamespace(ns));

  test('kubectl exec returns stdout, stderr and the exit status, in the container environment', async () => {
    const r = await kubectl(['exec', '-n', ns, 'long', '--', 'sh', '-c', 'echo "out $FLAVOUR"; echo err >&2; exit 7']);
    expect(r.stdout).toBe('out mint\n');
    expect(r.stderr).toContain('err\n');
    expect(r.stderr).toContain('command terminated with exit code 7');
    expect(r.code).toBe(7);
    const ok = await kubectl(['exec', '-n', ns, 'long', '-c', 'main', '--', 'true']);
    expect(ok.code).toBe(0);
  });

  test('kubectl exec -i passes stdin through and closes it', async () => {
    const r = await kubectl(['exec', '-i', '-n', ns, 'long', '--', 'sh', '-c', 'wc -l; cat >/dev/null; echo eof'], { input: 'a\nb\nc\n' });
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/ +/g, '')).toBe('3\neof\n');
  });

  test('kubectl exec of a missing command fails with a message', async () => {
    const r = await kubectl(['exec', '-n', ns, 'long', '--', 'no-such-command-svc']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('executable file not found');
  });

  test('kubectl logs: tail, timestamps, since-time', async () => {
    const tail = await kubectl(['logs', '-n', ns, 'long', '--tail=2']);
    const lines = tail.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^tick \d+$/);
    const ts = await kubectl(['logs', '-n', ns, 'long', '--tail=1', '--timestamps']);
    expect(ts.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z tick \d+\n$/);
    // sinceTime travels with second precision (metav1.Time), like with a real kubelet.
    const since = new Date(Math.ceil((Date.now() + 200) / 1000) * 1000).toISOString();
    await new Promise((r) => setTimeout(r, 2000));
    const recent = await kubectl(['logs', '-n', ns, 'long', `--since-time=${since}`, '--timestamps']);
    const stamps = recent.stdout.trim().split('\n').map((l) => Date.parse(l.split(' ')[0] ?? ''));
    expect(stamps.length).toBeGreaterThan(0);
    expect(stamps.every((t) => t >= Date.parse(since))).toBe(true);
  });

  test('kubectl logs -f follows until the container exits', async () => {
    await createPod(ns, { metadata: { name: 'counter' }, spec: { restartPolicy: 'Never', containers: [sh('main', 'for i in 1 2 3 4; do echo n$i; sleep 0.5; done')] } });
    await waitPhase(ns, 'counter', ['Running', 'Succeeded']);
    const t0 = Date.now();
    const r = await kubectl(['logs', '-f', '-n', ns, 'counter'], { timeoutMs: 20000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('n1\nn2\nn3\nn4\n');
    expect(Date.now() - t0).toBeLessThan(15000);
  });
});
