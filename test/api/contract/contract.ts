/**
 * The contract checker: the OpenAPI document the real server serves (GET /openapi.json), compiled with
 * ajv (draft 2020-12, formats), and a client that validates every answer of the server against it:
 * the path and method resolve to a documented operation, the status is documented for it, and the body
 * validates against that status's schema (or is empty when the response has no content). It records
 * which operations and statuses were exercised, so a test can require that every one was.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { Reply, TestServer } from '../../helpers/server.js';

type Json = Record<string, any>;

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export interface Operation {
  method: string;
  template: string;
  id: string;
  tags: string[];
  responses: Json;
}

interface Template { template: string; parts: string[]; literals: number }

const toTemplate = (t: string): Template => {
  const parts = t.split('/').filter(Boolean);
  return { template: t, parts, literals: parts.filter((p) => !p.startsWith('{')).length };
};

/** `{name}` path parameters as express writes them (`:name`). */
export const expressPath = (template: string) => template.replace(/\{([^}]+)\}/g, ':$1');

export class Contract {
  readonly operations = new Map<string, Operation>();
  /** `operationId status` of every answer checked. */
  readonly seen = new Set<string>();
  private readonly templates: Template[];
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly ajv: InstanceType<typeof Ajv2020>;

  constructor(readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false, allowUnionTypes: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'components', $defs: rewriteRefs(doc.components.schemas) });
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      for (const m of METHODS) {
        const op = item[m];
        if (op) this.operations.set(`${m.toUpperCase()} ${template}`, { method: m.toUpperCase(), template, id: op.operationId, tags: op.tags ?? [], responses: op.responses });
      }
    }
    // Literal segments win over parameters (/dags/search before /dags/{fileName}), as the routers order them.
    this.templates = Object.keys(doc.paths).map(toTemplate).sort((a, b) => b.literals - a.literals);
  }

  static async load(server: TestServer): Promise<Contract> {
    const r = await server.get('/openapi.json');
    if (r.status !== 200) throw new Error(`GET /openapi.json answered ${r.status}`);
    return new Contract(r.body);
  }

  /** The operation a concrete request path (below /api/v2, query allowed) resolves to. */
  operationOf(method: string, path: string): Operation | undefined {
    const parts = path.split('?')[0]!.split('/').filter(Boolean);
    for (const t of this.templates) {
      if (t.parts.length !== parts.length || !t.parts.every((p, i) => p.startsWith('{') || p.toLowerCase() === parts[i]!.toLowerCase())) continue;
      const op = this.operations.get(`${method.toUpperCase()} ${t.template}`);
      if (op) return op;
    }
    return undefined;
  }

  /** Problems of one answer ([] when it conforms). */
  problems(method: string, path: string, reply: Reply): string[] {
    const op = this.operationOf(method, path);
    if (!op) {
      // No documented operation: only the JSON 404 of an unknown route is acceptable.
      return reply.status === 404 && reply.body?.code === 'not_found' ? [] : [`${method} ${path}: no documented operation, answered ${reply.status}`];
    }
    this.seen.add(`${op.id} ${reply.status}`);
    const res = this.response(op, reply.status);
    if (!res) return [`${op.id}: status ${reply.status} is not documented (documented: ${Object.keys(op.responses).join(', ')}); body ${reply.text.slice(0, 300)}`];
    const content = res.content as Json | undefined;
    if (!content) return reply.text === '' ? [] : [`${op.id} ${reply.status}: documented without a body, got ${reply.text.slice(0, 200)}`];
    const type = (reply.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = content[type];
    if (!media) return [`${op.id} ${reply.status}: content type ${type} not documented (${Object.keys(content).join(', ')})`];
    const validate = this.validator(`${op.id} ${reply.status} ${type}`, media.schema);
    const body = type === 'application/json' ? reply.body : reply.text;
    if (validate(body)) return [];
    return [`${op.id} ${reply.status}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}; body ${reply.text.slice(0, 400)}`];
  }

  private response(op: Operation, status: number): Json | undefined {
    let r = op.responses[String(status)] as Json | undefined;
    while (r?.$ref) r = this.resolve(r.$ref);
    return r;
  }

  private resolve(ref: string): Json {
    return ref.replace(/^#\//, '').split('/').reduce<Json>((o, k) => o[k], this.doc);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.validators.get(key);
    if (!v) {
      v = this.ajv.compile(rewriteRefs(schema));
      this.validators.set(key, v);
    }
    return v;
  }

  /** `operationId status` pairs documented but never seen, for the operations matching `filter`. */
  unexercised(filter: (op: Operation) => boolean, statuses: (op: Operation) => string[] = () => ['2xx']): string[] {
    const missing: string[] = [];
    for (const op of this.operations.values()) {
      if (!filter(op)) continue;
      for (const s of statuses(op)) {
        const hit = s === '2xx' ? [...this.seen].some((x) => x.startsWith(`${op.id} 2`) || x === `${op.id} 302`) : this.seen.has(`${op.id} ${s}`);
        if (!hit) missing.push(`${op.id} ${s}`);
      }
    }
    return missing;
  }
}

/** `#/components/schemas/X` refs become refs into the `components` schema added to ajv. */
function rewriteRefs<T>(v: T): T {
  if (Array.isArray(v)) return v.map(rewriteRefs) as T;
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [
    k, k === '$ref' && typeof x === 'string' ? x.replace('#/components/schemas/', 'components#/$defs/') : rewriteRefs(x),
  ])) as T;
}

/** A client over a TestServer that checks every answer against the contract (and throws when it does not conform). */
export class CheckedClient {
  constructor(readonly server: TestServer, readonly contract: Contract, private readonly headers: Record<string, string> = {}) {}

  withHeaders(headers: Record<string, string>): CheckedClient {
    return new CheckedClient(this.server, this.contract, { ...this.headers, ...headers });
  }

  async req<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> {
    const reply = await this.server.req<T>(method, path, body, { ...this.headers, ...headers });
    const problems = this.contract.problems(method, path, reply);
    if (problems.length) throw new Error(`contract violation:\n${problems.join('\n')}`);
    return reply;
  }

  get = <T = any>(path: string) => this.req<T>('GET', path);
  post = <T = any>(path: string, body?: unknown) => this.req<T>('POST', path, body ?? {});
  put = <T = any>(path: string, body?: unknown) => this.req<T>('PUT', path, body ?? {});
  patch = <T = any>(path: string, body?: unknown) => this.req<T>('PATCH', path, body ?? {});
  del = <T = any>(path: string) => this.req<T>('DELETE', path);
}
