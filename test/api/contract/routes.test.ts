/**
 * The document cannot drift from the app: every route the express app serves under /api/v2 is a
 * documented operation and every documented operation is a route. The document itself is sound (unique
 * operationIds, declared path parameters, resolvable refs, compilable schemas), and every operation's
 * generic 400 (an unknown remoteNode) conforms to it.
 */
import { err, TestServer } from '../../helpers/server.js';
import { CheckedClient, Contract, expressPath } from './contract.js';
import { apiRoutes } from './routes.js';

const t = new TestServer();
let contract: Contract;
let api: CheckedClient;

beforeAll(async () => {
  await t.start();
  contract = await Contract.load(t);
  api = new CheckedClient(t, contract);
});
afterAll(() => t.stop());

/** A concrete path for a template: every parameter gets a valid sample value. */
const sample = (template: string) => template.replace(/\{[^}]+\}/g, 'sample-1');

describe('the OpenAPI document and the app', () => {
  test('is served as OpenAPI 3.1 with the server version', async () => {
    const r = await api.get('/openapi.json');
    const health = await api.get('/health');
    expect(r.body).toMatchObject({ openapi: '3.1.0', info: { title: expect.any(String), version: health.body.version } });
    expect(r.body['x-shared']).toBeUndefined();
  });

  test('every route of the app is documented, and every documented operation is a route', () => {
    const routes = apiRoutes(t);
    const documented = [...contract.operations.values()].map((o) => `${o.method} ${expressPath(o.template)}`).sort();
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((d) => !routes.includes(d))).toEqual([]);
    expect(routes.length).toBeGreaterThan(50);
  });

  test('operationIds are unique, tagged, and path parameters are declared', () => {
    const ids = [...contract.operations.values()].map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = new Set((contract.doc.tags as Array<{ name: string }>).map((x) => x.name));
    for (const [template, item] of Object.entries<any>(contract.doc.paths)) {
      const declared = (item.parameters ?? []).map((p: any) => (p.$ref ? contract.doc.components.parameters[p.$ref.split('/').pop()] : p))
        .filter((p: any) => p.in === 'path').map((p: any) => p.name).sort();
      const inPath = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      expect({ template, declared }).toEqual({ template, declared: inPath });
    }
    for (const op of contract.operations.values()) {
      expect(op.tags.length).toBeGreaterThan(0);
      for (const tag of op.tags) expect(tags.has(tag)).toBe(true);
    }
  });

  test('every $ref resolves', () => {
    const refs = new Set<string>();
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(visit);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.add(x);
          else visit(x);
        }
      }
    };
    visit(contract.doc);
    for (const ref of refs) {
      const target = ref.replace(/^#\//, '').split('/').reduce<any>((o, k) => o?.[k], contract.doc);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }
  });

  test('every operation answers an unknown remoteNode with a documented 400', async () => {
    for (const op of contract.operations.values()) {
      const r = await api.req(op.method, `${sample(op.template)}?remoteNode=nowhere`, op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
      expect({ op: op.id, status: r.status, code: r.body?.code }).toEqual({ op: op.id, status: 400, code: 'bad_request' });
    }
  });

  test('the checker refuses answers that do not conform', () => {
    const reply = (status: number, body: unknown) => ({ status, body, text: JSON.stringify(body), headers: new Headers({ 'content-type': 'application/json' }) });
    expect(contract.problems('GET', '/health', reply(200, { status: 'healthy', version: '1', uptime: 1, timestamp: new Date().toISOString() }))).toEqual([]);
    expect(contract.problems('GET', '/health', reply(200, { status: 'fine', version: '1', uptime: 1, timestamp: 'now' }))[0]).toMatch(/getHealth 200/);
    expect(contract.problems('GET', '/dags/x', reply(418, {}))[0]).toMatch(/status 418 is not documented/);
    expect(contract.problems('GET', '/dags/x/dag-runs/latest', reply(404, { code: 'not_found' }))[0]).toMatch(/message/);
    expect(contract.problems('POST', '/dags/x/rename', reply(200, { unexpected: true }))[0]).toMatch(/without a body/);
    expect(contract.problems('GET', '/dags/search?q=x', reply(200, { results: [], errors: [] }))).toEqual([]);
  });

  test('an unknown route is a JSON 404', async () => {
    const r = await api.get('/no/such/route');
    expect(r.status).toBe(404);
    expect(r.body).toEqual(err('not_found'));
  });
});
