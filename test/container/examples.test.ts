/**
 * The container examples (examples/containers/) load, and run to success with the real CLI against the
 * test engine: their image, busybox:1.36, is the test image under that name (no registry is reached).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDagText } from '../../src/core/spec/load.js';
import { ROOT, Sandbox } from '../helpers/cli.js';
import { describePodman, startPodman, TEST_IMAGE, type Podman } from '../helpers/podman.js';

const dir = join(ROOT, 'examples', 'containers');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('container examples load', () => {
  test.each(files)('%s', (f) => {
    const loaded = loadDagText(readFileSync(join(dir, f), 'utf8'), { fileName: f.replace(/\.yaml$/, '') });
    expect(loaded.errors).toEqual([]);
  });
});

describePodman('container examples run (svc start, Podman)', () => {
  let pm: Podman;
  let sb: Sandbox;
  beforeAll(async () => {
    pm = await startPodman();
    pm.cli(['tag', TEST_IMAGE, 'docker.io/library/busybox:1.36']);
    sb = new Sandbox({ DOCKER_HOST: pm.dockerHost });
  }, 120_000);
  afterAll(async () => { await pm?.stop(); });

  test.each(files)('%s runs to success', async (f) => {
    const r = await sb.run(['start', join(dir, f)]);
    expect({ file: f, code: r.code, out: r.stdout, err: r.stderr }).toMatchObject({ code: 0 });
  }, 120_000);

  test('the run-scoped example passed its output along, and no container of either run is left', async () => {
    const logs = readdirSync(sb.dataDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name === 'isolated.out');
    expect(readFileSync(join(logs[0]!.parentPath, logs[0]!.name), 'utf8')).toBe('a container of its own, after hello from example\n');
    expect(await pm.svcContainers()).not.toContainEqual(expect.objectContaining({ Labels: expect.objectContaining({ 'svc.io/dag': 'run-container' }) }));
    expect(await pm.svcContainers()).not.toContainEqual(expect.objectContaining({ Names: ['/svc-example-service'] }));
  });
});
