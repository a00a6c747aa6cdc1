/**
 * `otel` (SPEC 2.2): DAGs run through the real embedded engine export their traces over OTLP/HTTP to a
 * real Jaeger on loopback, read back through Jaeger's query API: the run span with its step spans,
 * attributes, a failed step, a retried step's two spans, parallel items, a sub-DAG run in the same trace
 * under its calling step, secrets masked, headers sent; an endpoint that does not answer costs a run at
 * most the block's timeout, and says so as a warning. One run goes through the real CLI (the bundle
 * loads the SDK lazily).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import type { DagRunResource } from '../../src/core/resources.js';
import { runStatusLabel } from '../../src/core/run/status.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { runSpanIdOf, traceIdOf } from '../../src/engine/run/trace-spans.js';
import { embeddedDeps, loadDagFile } from '../../src/main/embedded.js';
import { Sandbox } from '../helpers/cli.js';
import { describeJaeger, startJaeger, type Jaeger, type ReadSpan } from '../helpers/jaeger.js';
import { freePort } from '../helpers/needs.js';
import { runSteps } from '../helpers/steps.js';

interface Logged { level: string; msg: string; fields?: Record<string, unknown> }

/** A run through the embedded engine whose log the test reads (runSteps keeps it quiet). */
async function runLogged(yaml: string, files: Record<string, string> = {}): Promise<{ run: DagRunResource; status: string; logs: Logged[]; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-otel-'));
  for (const [rel, content] of Object.entries(files)) writeFileSync(join(dir, rel), content);
  writeFileSync(join(dir, 'dag.yaml'), yaml);
  const logs: Logged[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>): void => { logs.push({ level, msg, ...(fields ? { fields } : {}) }); };
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME ?? dir, SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dir });
  const runs = new RunService(embeddedDeps(config, { info: at('info'), warn: at('warn'), error: at('error') }));
  const loaded = await loadDagFile(join(dir, 'dag.yaml'));
  if (loaded.errors.length > 0) throw new Error(loaded.errors.join('; '));
  const created = await runs.create(loaded, {});
  const t0 = Date.now();
  const run = await runs.drive({ dagName: created.spec.dagName, dagRunId: created.spec.dagRunId });
  return { run, status: runStatusLabel(run.status.run.status), logs, ms: Date.now() - t0 };
}

const named = (spans: ReadSpan[], name: string): ReadSpan[] => spans.filter((s) => s.name === name).sort((a, b) => a.startUs - b.startUs);
const one = (spans: ReadSpan[], name: string): ReadSpan => {
  const found = named(spans, name);
  if (found.length !== 1) throw new Error(`${found.length} spans named ${name}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0]!;
};

describeJaeger('otel: traces of runs and steps in a real Jaeger', () => {
  let jaeger: Jaeger;
  beforeAll(async () => { jaeger = await startJaeger(); });
  afterAll(async () => { await jaeger?.stop(); });

  test('examples/steps/otel.yaml: the run, its steps, a retry, parallel items and a sub-DAG in one trace', async () => {
    const work = mkdtempSync(join(tmpdir(), 'svc-otel-work-'));
    const otlp = new URL(jaeger.otlpUrl).host; // host:port, insecure: plain http
    const r = await runSteps(readFileSync('examples/steps/otel.yaml', 'utf8'), { params: `OTLP=${otlp} WORK=${work}` });
    expect(r.status).toBe('succeeded');
    // run + prepare + flaky x2 + shards x3 + cleanup, and per item a sub-DAG run + its step
    const spans = await jaeger.spans('otel-example', 14);
    expect(spans).toHaveLength(14);
    const traceId = traceIdOf(r.run.spec.root);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceId]));

    const run = one(spans, 'otel-example');
    expect(run.parentSpanId).toBeUndefined();
    expect(run.spanId).toBe(runSpanIdOf(r.run));
    expect(run.tags).toMatchObject({
      'svc.dag.name': 'otel-example', 'svc.dag_run.id': r.run.spec.dagRunId, 'svc.dag_run.attempt_id': r.run.status.attemptId,
      'svc.dag_run.status': 'succeeded', 'otel.status_code': 'OK',
    });
    expect(run.resource).toMatchObject({ 'deployment.environment': 'dev' });
    expect(run.service).toBe('otel-example');

    for (const name of ['prepare', 'flaky', 'shards', 'cleanup']) {
      for (const s of named(spans, name)) {
        expect({ name, parent: s.parentSpanId }).toEqual({ name, parent: run.spanId });
        expect(s.tags).toMatchObject({ 'svc.dag.name': 'otel-example', 'svc.dag_run.id': r.run.spec.dagRunId, 'svc.step.name': name });
        expect(s.startUs).toBeGreaterThanOrEqual(run.startUs);
        expect(s.startUs + s.durationUs).toBeLessThanOrEqual(run.startUs + run.durationUs);
      }
    }
    const [first, retry] = named(spans, 'flaky');
    expect(first!.tags).toMatchObject({ 'svc.step.attempt': 1, 'svc.step.status': 'failed', 'svc.step.exit_code': 3, 'svc.step.error': 'exit status 3', 'otel.status_code': 'ERROR', 'otel.status_description': 'exit status 3' });
    expect(retry!.tags).toMatchObject({ 'svc.step.attempt': 2, 'svc.step.status': 'succeeded', 'svc.step.exit_code': 0, 'otel.status_code': 'OK' });
    expect(first!.spanId).not.toBe(retry!.spanId);

    // Each item: its own span, the parent of the sub-DAG run it called, whose step is a child of that run.
    const shards = named(spans, 'shards');
    expect(shards.map((s) => s.tags['svc.step.item']).sort()).toEqual(['a', 'b', 'c']);
    expect(shards.map((s) => s.tags['svc.step.item.index']).sort()).toEqual([0, 1, 2]);
    const subs = named(spans, 'otel-shard');
    expect(subs).toHaveLength(3);
    for (const shard of shards) {
      const sub = subs.find((s) => s.parentSpanId === shard.spanId);
      expect(sub?.tags).toMatchObject({ 'svc.dag.name': 'otel-shard', 'svc.dag_run.id': shard.tags['svc.step.sub_dag_run.id'], 'svc.dag_run.parent.id': r.run.spec.dagRunId, 'svc.dag_run.status': 'succeeded' });
      expect(named(spans, 'process').filter((p) => p.parentSpanId === sub!.spanId)).toHaveLength(1);
    }
  });

  test('a failed step, the run failed, headers sent, and no secret in anything exported', async () => {
    const token = 'tok-3f9a1c77e2';
    const proxy = await recordingProxy(jaeger.otlpUrl);
    try {
      const r = await runLogged(`name: otel-fail
secrets:
  - name: API_TOKEN
    provider: file
    key: token.txt
otel:
  enabled: true
  endpoint: ${proxy.url}
  headers:
    Authorization: Bearer \${API_TOKEN}
  resource:
    service.name: otel-fail
    deploy.ref: "ref-\${API_TOKEN}"
steps:
  - name: ok
    command: echo fine
  - name: broken
    depends: ok
    command: echo "using $API_TOKEN" >&2; exit 7
    continueOn:
      failure: true
  - name: lookup
    depends: broken
    call: missing-\${API_TOKEN}
`, { 'token.txt': token });
      expect(r.status).toBe('failed');
      const spans = await jaeger.spans('otel-fail', 4);
      const broken = one(spans, 'broken');
      expect(broken.tags).toMatchObject({ 'svc.step.status': 'failed', 'svc.step.exit_code': 7, 'svc.step.error': 'exit status 7', 'otel.status_code': 'ERROR' });
      const lookup = one(spans, 'lookup');
      expect(lookup.tags).toMatchObject({ 'svc.step.status': 'failed', 'otel.status_code': 'ERROR' });
      expect(String(lookup.tags['svc.step.error'])).toContain('missing-*******');
      const run = one(spans, 'otel-fail');
      expect(run.tags).toMatchObject({ 'svc.dag_run.status': 'failed', 'otel.status_code': 'ERROR' });
      expect(run.resource['deploy.ref']).toBe('ref-*******');
      // The header reached the receiver, expanded from the secret; the secret appears nowhere in the trace.
      expect(proxy.headers.map((h) => h.authorization)).toContain(`Bearer ${token}`);
      const raw = await (await fetch(`${jaeger.queryUrl}/api/traces/${run.traceId}`)).text();
      expect(raw).toContain('otel-fail');
      expect(raw).not.toContain(token);
      expect(JSON.stringify(r.logs)).not.toContain(token);
    } finally {
      await proxy.close();
    }
  });

  test('an endpoint that never answers delays the end of a run by at most its timeout, with a warning', async () => {
    const hang = await silentServer();
    const refused = await freePort();
    try {
      const yaml = (name: string, endpoint: string): string => `name: ${name}
otel:
  enabled: true
  endpoint: ${endpoint}
  timeout: 1s
steps:
  - name: a
    command: "true"
  - name: b
    depends: a
    command: "true"
`;
      const hung = await runLogged(yaml('otel-hang', `http://127.0.0.1:${hang.port}/v1/traces`));
      expect(hung.status).toBe('succeeded');
      // The export gives up after 1 s (the close grants 1 s more at most): well under the 10 s default.
      expect(hung.ms).toBeLessThan(4000);
      expect(hung.logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toContain('Failed to export traces');

      const down = await runLogged(yaml('otel-refused', `127.0.0.1:${refused}`).replace('  timeout: 1s', '  insecure: true\n  timeout: 1s'));
      expect(down.status).toBe('succeeded');
      expect(down.ms).toBeLessThan(4000);
      const warning = down.logs.find((l) => l.msg === 'Failed to export traces');
      expect(warning?.fields).toMatchObject({ dag: 'otel-refused', endpoint: `http://127.0.0.1:${refused}/v1/traces` });
    } finally {
      await hang.close();
    }
  });

  test('a DAG whose otel block is disabled exports nothing and warns about nothing', async () => {
    const r = await runLogged(`name: otel-off
otel:
  enabled: false
  endpoint: ${jaeger.otlpUrl}
  resource:
    service.name: otel-off
steps:
  - name: a
    command: "true"
`);
    expect(r.status).toBe('succeeded');
    expect(r.logs.filter((l) => l.level === 'warn')).toEqual([]);
    const services = await (await fetch(`${jaeger.queryUrl}/api/services`)).json() as { data: string[] | null };
    expect(services.data ?? []).not.toContain('otel-off');
  });

  test('svc start (the bundled CLI) exports the trace of a traced DAG', async () => {
    const sb = new Sandbox();
    const file = sb.dag('otel-cli', `name: otel-cli
otel:
  enabled: true
  endpoint: ${jaeger.otlpUrl}
  resource:
    service.name: otel-cli
steps:
  - name: hello
    command: echo hello
`);
    const r = await sb.run(['start', file]);
    expect({ code: r.code, err: r.stderr }).toMatchObject({ code: 0 });
    const spans = await jaeger.spans('otel-cli', 2);
    expect(one(spans, 'hello').parentSpanId).toBe(one(spans, 'otel-cli').spanId);
  });
});

/** An OTLP/HTTP proxy in front of Jaeger that records each request's headers. */
async function recordingProxy(target: string): Promise<{ url: string; headers: IncomingHttpHeaders[]; close: () => Promise<void> }> {
  const headers: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    headers.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void fetch(target, { method: 'POST', headers: { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' }, body: Buffer.concat(chunks) })
        .then(async (up) => { res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/x-protobuf' }); res.end(Buffer.from(await up.arrayBuffer())); })
        .catch(() => { res.writeHead(502); res.end(); });
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}/v1/traces`, headers, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Accepts connections and never answers: an endpoint that hangs. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((s) => { sockets.add(s); s.on('error', () => undefined); s.on('close', () => sockets.delete(s)); });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}
