/**
 * ATTACK: malformed DAG specs through every endpoint that takes one, with authentication on. A corpus made
 * from the example DAGs (each cut, stripped of a line, given a line twice, a value of another type, an alias
 * to nowhere, a tab, a second document) plus hand-made shapes (deep nesting, NUL bytes, huge numbers, binary
 * tags, cycles, names with dots and slashes). Whatever the spec, the answer is never a 5xx: a 200 with its
 * errors (validate, PUT spec) or a 4xx in the spec's error model, and the server keeps serving.
 * Deterministic: the mutations come from a seeded generator, so a failure names a reproducible case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_PASSWORD, bearer, builtinServer, login } from '../auth/harness.js';
import type { Reply } from '../../helpers/server.js';

const EXAMPLES = new URL('../../../examples/', import.meta.url).pathname;

/** The example DAG files (schedules dropped: a stored fuzz case must not start runs by itself). */
function bases(): string[] {
  const files = [...readdirSync(EXAMPLES).map((f) => join(EXAMPLES, f)), ...readdirSync(join(EXAMPLES, 'steps')).map((f) => join(EXAMPLES, 'steps', f))];
  return files.filter((f) => f.endsWith('.yaml')).map((f) => readFileSync(f, 'utf8').split('\n').filter((l) => !/^\s*schedule:/.test(l)).join('\n'));
}

/** A small seeded generator (mulberry32): the corpus is the same on every run. */
function generator(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const ODD_VALUES = ['[]', '{}', 'null', '-1', '1e400', '"\\u0000"', 'x'.repeat(5000), '*nowhere', '!!binary AAAA', '&a [*a]', '~', '"${A}${B}`id`"', '0x7fffffffffffffff', '[[[[[[[[[[]]]]]]]]]]', '!!python/object:os.system'];

function mutate(text: string, pick: (n: number) => number): string {
  const lines = text.split('\n');
  const at = pick(Math.max(lines.length, 1));
  switch (pick(7)) {
    case 0: return text.slice(0, pick(text.length + 1));
    case 1: return lines.filter((_, i) => i !== at).join('\n');
    case 2: return [...lines.slice(0, at + 1), lines[at] ?? '', ...lines.slice(at + 1)].join('\n');
    case 3: return lines.map((l, i) => (i === at ? l.replace(/:\s.*$/, `: ${ODD_VALUES[pick(ODD_VALUES.length)]}`) : l)).join('\n');
    case 4: return lines.map((l, i) => (i === at ? `\t${l}` : l)).join('\n');
    case 5: return `${text}\n---\n${lines.slice(0, at).join('\n')}`;
    default: return lines.map((l, i) => (i === at ? l.replace(/^(\s*)/, '$1  ') : l)).join('\n');
  }
}

const HANDMADE = [
  '', 'null', '[]', '"a string"', '42', 'steps: 5', 'steps: [null]', 'steps: [[]]', 'steps: {}', '{', 'steps: [',
  `steps:\n  - name: a\n    command: ${'['.repeat(2000)}`, `${'- '.repeat(3000)}x`, 'name: "../../etc"\nsteps:\n  - command: "true"',
  'name: a/b\nsteps:\n  - command: "true"', 'steps:\n  - name: a\n    depends: [a]\n    command: "true"', 'schedule: "not a cron"\nsteps:\n  - command: "true"',
  'params: {a: {b: c}}\nsteps:\n  - command: "true"', 'steps:\n  - name: "\u0000"\n    command: "true"', '\u0000\u0001\u0002binary',
  'a: &x [*x]', 'steps:\n  - name: s\n    command: "true"\n    retryPolicy: {limit: 1e400, intervalSec: -5}', `name: ${'n'.repeat(500)}\nsteps:\n  - command: "true"`,
  'steps:\n  - name: s\n    type: nosuchtype\n    command: x', 'steps:\n  - name: s\n    call: itself\n---\nname: itself\nsteps:\n  - call: itself',
  'env: [1, 2, {a: [b]}]\nsteps:\n  - command: "true"', 'handlerOn: {exit: 5}\nsteps:\n  - command: "true"', 'steps:\n  - name: s\n    parallel: {items: 5, maxConcurrent: "x"}\n    command: "true"',
  'steps:\n  - name: s\n    kubernetes: {securityContext: [1]}\n    command: "true"', 'steps:\n  - name: s\n    container: {image: [], volumes: 5}\n    command: "true"',
];

function corpus(): string[] {
  const pick = generator(0x5ec);
  const out = [...HANDMADE];
  for (const base of bases()) for (let i = 0; i < 30; i++) out.push(mutate(i < 15 ? base : mutate(base, pick), pick));
  return out;
}

/** A reply that the spec's error model allows for a malformed input: not a 5xx, and a 4xx names its code. */
function expectNoServerError(r: Reply, what: string): void {
  if (r.status >= 500 || (r.status >= 400 && (typeof r.body?.code !== 'string' || typeof r.body?.message !== 'string'))) {
    throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
  }
}

describe('ATTACK: malformed DAG specs through every endpoint that takes one, auth on', () => {
  const srv = builtinServer();
  let admin: Record<string, string> = {};
  const specs = corpus();
  beforeAll(async () => {
    await srv.start();
    admin = bearer(await login(srv, 'admin', ADMIN_PASSWORD));
    expect((await srv.req('POST', '/dags', { name: 'fuzz' }, admin)).status).toBe(201);
  });
  afterAll(() => srv.stop());

  test(`${specs.length} specs: validate, PUT spec, POST /dags and inline runs answer without a 5xx`, async () => {
    let invalid = 0;
    for (const [i, spec] of specs.entries()) {
      const what = `case ${i} ${JSON.stringify(spec.slice(0, 80))}`;
      const v = await srv.req('POST', '/dags/validate', { spec }, admin);
      expectNoServerError(v, `${what} validate`);
      expect(v.status).toBe(200);
      expectNoServerError(await srv.req('PUT', '/dags/fuzz/spec', { spec }, admin), `${what} PUT spec`);
      const created = await srv.req('POST', '/dags', { name: `fuzz-${i}`, spec }, admin);
      expectNoServerError(created, `${what} POST /dags`);
      if (v.body.valid) continue;
      invalid++;
      // Only specs that do not validate are sent as inline runs: a valid one would run its commands.
      const inline = await srv.req('POST', '/dag-runs', { spec, name: `inline-${i}` }, admin);
      expectNoServerError(inline, `${what} POST /dag-runs`);
      expect(inline.status).toBe(400);
      expect(created.status).toBe(400);
    }
    // The corpus exercises refusals, not only accepted specs.
    expect(invalid).toBeGreaterThan(specs.length / 4);
    expect((await srv.get('/health')).body.status).toBe('healthy');
  }, 300_000);

  test('without credentials every one of them is 401, never parsed', async () => {
    for (const spec of specs.slice(0, 40)) {
      const r = await srv.req('POST', '/dags/validate', { spec });
      expect([r.status, r.body?.code]).toEqual([401, 'unauthorized']);
    }
  });
});
