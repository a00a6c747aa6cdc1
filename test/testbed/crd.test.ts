/** Custom resources against the real API server: CRD apply, create, watch, patch, resourceVersion conflicts. */
import { ApiError, cluster, createNamespace, deleteNamespace, describeCluster, eventually, kubectl } from './helpers.js';

const group = 'testbed.svc.local';
const plural = 'widgets';
const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, singular: widget, kind: Widget, shortNames: [wdg]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
              color: {type: string}
          status:
            type: object
            properties:
              phase: {type: string}
`;

interface Widget {
  metadata: { name: string; resourceVersion: string; generation?: number };
  spec: { size: number; color?: string };
  status?: { phase?: string };
}

describeCluster('custom resources on the test bed API server', () => {
  let ns = '';
  const base = (): string => `/apis/${group}/v1/namespaces/${ns}/${plural}`;

  beforeAll(async () => {
    const applied = await kubectl(['apply', '-f', '-'], { input: crd });
    expect(applied.stderr).toBe('');
    const established = await kubectl(['wait', '--for=condition=Established', `crd/${plural}.${group}`, '--timeout=30s']);
    expect(established.code).toBe(0);
    ns = await createNamespace('crd');
    // Discovery of a new group can lag a moment behind Established.
    await eventually('the widgets resource to be served', () => cluster().kube.get(base()).then(() => true));
  });
  afterAll(() => deleteNamespace(ns));

  test('create, watch, patch, status subresource, and resourceVersion conflicts', async () => {
    const { kube } = cluster();
    const events: { type: string; object: Widget }[] = [];
    const abort = new AbortController();
    const watching = kube.watch<Widget>(base(), { resourceVersion: '0' }, (ev) => void events.push(ev), abort.signal).catch(() => {});

    const created = await kube.post<Widget>(base(), { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } });
    expect(created.metadata.generation).toBe(1);

    // Schema validation is the API server's.
    await expect(kube.post(base(), { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'bad' }, spec: { size: 0 } })).rejects.toMatchObject({ code: 422 });

    const patched = await kube.mergePatch<Widget>(`${base()}/w1`, { spec: { color: 'red' } });
    expect(patched.spec).toEqual({ size: 1, color: 'red' });
    expect(patched.metadata.generation).toBe(2);

    // An update with the stale resourceVersion conflicts; with the fresh one it succeeds.
    const stale = { ...created, spec: { size: 5 } };
    const conflict = await kube.request('PUT', `${base()}/w1`, { body: stale }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ApiError);
    expect((conflict as ApiError).code).toBe(409);
    expect((conflict as ApiError).reason).toBe('Conflict');
    const updated = await kube.request<Widget>('PUT', `${base()}/w1`, { body: { ...patched, spec: { size: 5, color: 'red' } } });
    expect(updated.spec.size).toBe(5);
    // A merge patch carrying a stale resourceVersion is a precondition and conflicts too.
    await expect(kube.mergePatch(`${base()}/w1`, { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { size: 6 } })).rejects.toMatchObject({ code: 409 });

    // The status subresource does not bump generation and spec changes there are ignored.
    const st = await kube.mergePatch<Widget>(`${base()}/w1/status`, { status: { phase: 'Ready' }, spec: { size: 99 } });
    expect(st.status?.phase).toBe('Ready');
    expect(st.spec.size).toBe(5);
    expect(st.metadata.generation).toBe(3);

    await kube.delete(`${base()}/w1`);
    await eventually('ADDED, MODIFIED x3, DELETED watch events', async () => events.filter((e) => e.type !== 'BOOKMARK').length >= 5);
    abort.abort();
    await watching;
    const seen = events.filter((e) => e.type !== 'BOOKMARK');
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED']);
    expect(seen[1]?.object.spec.color).toBe('red');
    expect(seen[3]?.object.status?.phase).toBe('Ready');

    // kubectl sees the kind through discovery.
    await kube.post(base(), { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 2 } });
    const got = await kubectl(['get', 'wdg', '-n', ns, '-o', 'jsonpath={.items[*].metadata.name}']);
    expect(got.stdout).toBe('w2');
  });
});
