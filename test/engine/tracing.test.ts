/**
 * Tracing in the engine (run/tracing.ts, run/trace-spans.ts) on the in-memory world with a recording
 * RunTracer: which spans a run makes, their deterministic ids and parents, the target handed to the
 * exporter, and that a tracer that fails or hangs never fails or holds a run beyond its bound.
 */
import type { RunTrace, RunTracer, SpanRecord, TraceExport } from '../../src/core/ports/run-tracer.js';
import type { EngineDeps } from '../../src/engine/deps.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { childRunId } from '../../src/engine/run/subdag.js';
import { execOutcome, otlpTracesUrl, runSpanIdOf, traceIdOf } from '../../src/engine/run/trace-spans.js';
import { create, keyOf, memoryDeps, world } from './memory-world.js';

class Recorder implements RunTracer {
  readonly spans: SpanRecord[] = [];
  readonly targets: TraceExport[] = [];
  constructor(private readonly how: { open?: 'reject'; close?: 'hang' } = {}) {}

  async open(target: TraceExport): Promise<RunTrace> {
    if (this.how.open === 'reject') throw new Error('no SDK here');
    this.targets.push(target);
    return {
      record: (s) => { this.spans.push(s); },
      close: () => (this.how.close === 'hang' ? new Promise<void>(() => undefined) : Promise.resolve()),
    };
  }
}

interface Logged { msg: string; fields?: Record<string, unknown> }

function engineWith(tracer: RunTracer, script: Parameters<typeof world>[0] = () => ({ exitCode: 0 })): { runs: RunService; warnings: Logged[] } {
  const warnings: Logged[] = [];
  const log: EngineDeps['log'] = { info: () => undefined, error: () => undefined, warn: (msg, fields) => { warnings.push({ msg, ...(fields ? { fields } : {}) }); } };
  return { runs: new RunService({ ...memoryDeps(world(script), 1, log), tracer }), warnings };
}

describe('run tracing', () => {
  test('a span per run and per execution: retries apart, parents and ids derived from identities', async () => {
    let calls = 0;
    const rec = new Recorder();
    const { runs } = engineWith(rec, (req) => (req.identity.node === 'flaky' && calls++ === 0 ? { exitCode: 4 } : { exitCode: 0 }));
    const r = await create(runs, `name: traced
params:
  - HOST: collector.example
otel:
  enabled: true
  endpoint: \${HOST}:4318
  insecure: true
  timeout: 3s
  headers:
    x-team: \${HOST}
  resource:
    service.name: pipelines
steps:
  - name: first
    command: "true"
  - name: flaky
    depends: first
    command: "true"
    retryPolicy:
      limit: 1
      intervalSec: 0
`);
    const done = await runs.drive(keyOf(r));
    expect(rec.targets).toEqual([{ url: 'http://collector.example:4318/v1/traces', headers: { 'x-team': 'collector.example' }, insecure: true, timeoutMs: 3000, resource: { 'service.name': 'pipelines' } }]);
    expect(rec.spans.map((s) => s.name)).toEqual(['first', 'flaky', 'flaky', 'traced']);
    const run = rec.spans[3]!;
    expect(run).toMatchObject({ traceId: traceIdOf(done.spec.root), spanId: runSpanIdOf(done), status: { code: 'ok' } });
    expect(run.parentSpanId).toBeUndefined();
    const [first, f1, f2] = rec.spans;
    for (const s of [first!, f1!, f2!]) expect(s).toMatchObject({ traceId: run.traceId, parentSpanId: run.spanId });
    expect(f1).toMatchObject({ spanId: childRunId(done, { node: 'flaky', attempt: 0 }).slice(0, 16), attributes: { 'svc.step.attempt': 1, 'svc.step.exit_code': 4, 'svc.step.status': 'failed' }, status: { code: 'error', message: 'exit status 4' } });
    expect(f2).toMatchObject({ attributes: { 'svc.step.attempt': 2, 'svc.step.status': 'succeeded' }, status: { code: 'ok' } });
    expect(new Set(rec.spans.map((s) => s.spanId)).size).toBe(4);
    for (const s of rec.spans) expect(s.startMs).toBeLessThanOrEqual(s.endMs);
    expect(run.startMs).toBeLessThanOrEqual(Math.min(...rec.spans.map((s) => s.startMs)));
    expect(run.endMs).toBeGreaterThanOrEqual(Math.max(...rec.spans.map((s) => s.endMs)));
  });

  test('no otel block, or a disabled one: the tracer is never asked', async () => {
    const rec = new Recorder();
    const { runs } = engineWith(rec);
    for (const block of ['', 'otel:\n  enabled: false\n']) {
      const r = await create(runs, `name: plain\n${block}steps:\n  - name: a\n    command: "true"\n`);
      expect((await runs.drive(keyOf(r))).status.run.status).toBe(4);
    }
    expect(rec.targets).toEqual([]);
    expect(rec.spans).toEqual([]);
  });

  test('a tracer that cannot open, or an endpoint that is no URL, is a warning; the run succeeds', async () => {
    for (const [tracer, endpoint, reason] of [[new Recorder({ open: 'reject' }), 'localhost:4318', 'no SDK here'], [new Recorder(), 'grpc://x:4317', 'not http or https']] as const) {
      const { runs, warnings } = engineWith(tracer);
      const r = await create(runs, `name: warned\notel:\n  enabled: true\n  endpoint: ${endpoint}\nsteps:\n  - name: a\n    command: "true"\n`);
      expect((await runs.drive(keyOf(r))).status.run.status).toBe(4);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ msg: 'Failed to set up trace export', fields: { dag: 'warned' } });
      expect(String(warnings[0]!.fields!.error)).toContain(reason);
    }
  });

  test('an exporter that never finishes holds the end of a run for its timeout and a second at most', async () => {
    const { runs, warnings } = engineWith(new Recorder({ close: 'hang' }));
    const r = await create(runs, 'name: stuck\notel:\n  enabled: true\n  timeout: 200ms\nsteps:\n  - name: a\n    command: "true"\n');
    const t0 = Date.now();
    expect((await runs.drive(keyOf(r))).status.run.status).toBe(4);
    expect(Date.now() - t0).toBeLessThan(1200 + 3000); // room for a loaded machine; a hang would never end
    expect(warnings.map((w) => w.msg)).toEqual(['Failed to export traces']);
  });

  test('endpoints become OTLP/HTTP traces URLs; outcomes are read off the result', () => {
    expect(otlpTracesUrl('', false)).toBe('http://localhost:4318/v1/traces');
    expect(otlpTracesUrl('otel.internal:4318', false)).toBe('https://otel.internal:4318/v1/traces');
    expect(otlpTracesUrl('otel.internal:4318', true)).toBe('http://otel.internal:4318/v1/traces');
    expect(otlpTracesUrl('https://api.vendor.example', false)).toBe('https://api.vendor.example/v1/traces');
    expect(otlpTracesUrl('http://c:4318/custom/traces', false)).toBe('http://c:4318/custom/traces');
    expect(() => otlpTracesUrl('grpc://c:4317', true)).toThrow(/OTLP\/HTTP/);
    expect(execOutcome({ exitCode: 0 })).toEqual({ status: 'succeeded', error: '' });
    expect(execOutcome({ exitCode: 0, partial: true })).toEqual({ status: 'partially_succeeded', error: '' });
    expect(execOutcome({ exitCode: 2 })).toEqual({ status: 'failed', error: 'exit status 2' });
    expect(execOutcome({ exitCode: 0, skipped: true })).toEqual({ status: 'skipped', error: '' });
    expect(execOutcome({ exitCode: 143, signal: 'SIGTERM' })).toEqual({ status: 'aborted', error: 'exit status 143' });
  });
});
