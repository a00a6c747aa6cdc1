/**
 * RunTracer over the OpenTelemetry SDK: each traced run gets its own TracerProvider (its own resource,
 * endpoint and headers) with a batch processor and the OTLP/HTTP protobuf exporter, shut down when the
 * run ends. http/protobuf is the OTLP default protocol, the one every receiver accepts (the collector,
 * Jaeger, the hosted backends), smaller on the wire than http/json, and it needs no gRPC stack.
 *
 * The SDK (about 20 MB of modules) is loaded on the first `open()`, never at import: a process that
 * runs no traced DAG (`svc validate`, a CLI run of an ordinary DAG) does not pay for it. The module
 * names are passed through a variable so that no bundler (hack/bundle.mjs) pulls them into the CLI.
 *
 * Span identities come from the engine (deterministic): the SDK's id generator hands out the ids the
 * engine chose, set just before each synchronous startSpan.
 */
import type * as OtelApi from '@opentelemetry/api';
import type * as OtelResources from '@opentelemetry/resources';
import type * as OtelSdk from '@opentelemetry/sdk-trace';
import type * as OtelProto from '@opentelemetry/exporter-trace-otlp-proto';
import type { RunTrace, RunTracer, SpanRecord, TraceExport } from '../../core/ports/run-tracer.js';

interface Sdk {
  api: typeof OtelApi;
  resources: typeof OtelResources;
  trace: typeof OtelSdk;
  proto: typeof OtelProto;
}

const importByName = (name: string): Promise<unknown> => import(name);

let loading: Promise<Sdk> | undefined;

function loadSdk(): Promise<Sdk> {
  loading ??= Promise.all([
    importByName('@opentelemetry/api'), importByName('@opentelemetry/resources'),
    importByName('@opentelemetry/sdk-trace'), importByName('@opentelemetry/exporter-trace-otlp-proto'),
  ]).then(([api, resources, trace, proto]) => ({
    api: api as typeof OtelApi, resources: resources as typeof OtelResources, trace: trace as typeof OtelSdk, proto: proto as typeof OtelProto,
  }));
  // A failed load is tried again by the next run (a package installed meanwhile).
  loading.catch(() => { loading = undefined; });
  return loading;
}

/** Hands out the ids set by `use()`; random ones otherwise (never asked for: every span is set). */
class ChosenIds implements OtelSdk.IdGenerator {
  private traceId = '';
  private spanId = '';

  constructor(private readonly random: OtelSdk.IdGenerator) {}

  use(traceId: string, spanId: string): void {
    this.traceId = traceId;
    this.spanId = spanId;
  }

  generateTraceId(): string {
    return this.take('traceId') || this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.take('spanId') || this.random.generateSpanId();
  }

  private take(which: 'traceId' | 'spanId'): string {
    const v = this[which];
    this[which] = '';
    return v;
  }
}

type ExportResult = Parameters<Parameters<OtelSdk.SpanExporter['export']>[1]>[0];

/** The OTLP exporter, with each failed export reported (the SDK would only tell its silent diag logger). */
class ReportingExporter implements OtelSdk.SpanExporter {
  constructor(private readonly inner: OtelSdk.SpanExporter, private readonly failed: (reason: string) => void) {}

  export(spans: OtelSdk.ReadableSpan[], done: (r: ExportResult) => void): void {
    try {
      this.inner.export(spans, (r) => {
        if (r.code !== 0) this.failed(r.error?.message || `export of ${spans.length} spans failed`);
        done(r);
      });
    } catch (e) {
      this.failed(e instanceof Error ? e.message : String(e));
      done({ code: 1, error: e instanceof Error ? e : new Error(String(e)) });
    }
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

class OtlpRunTrace implements RunTrace {
  private readonly ids: ChosenIds;
  private readonly provider: OtelSdk.TracerProvider;
  private readonly tracer: OtelApi.Tracer;

  constructor(private readonly sdk: Sdk, target: TraceExport, warn: (reason: string) => void) {
    const { trace, resources, proto } = sdk;
    this.ids = new ChosenIds(new trace.RandomIdGenerator());
    const exporter = new proto.OTLPTraceExporter({
      url: target.url, headers: target.headers, timeoutMillis: target.timeoutMs,
      // One connection per export: nothing stays open (and holds a CLI process) once the run is over.
      keepAlive: false,
      ...(target.insecure && target.url.startsWith('https:') ? { httpAgentOptions: { keepAlive: false, rejectUnauthorized: false } } : {}),
    });
    this.provider = new trace.TracerProvider({
      resource: resources.resourceFromAttributes(target.resource),
      idGenerator: this.ids,
      spanProcessors: [new trace.BatchSpanProcessor({
        exporter: new ReportingExporter(exporter, warn),
        scheduledDelayMillis: 2000,
        // The exporter's own timeout ends a stuck request first, so its failure is reported.
        exportTimeoutMillis: target.timeoutMs + 500,
      })],
    });
    this.tracer = this.provider.getTracer('svc');
  }

  record(s: SpanRecord): void {
    const { api } = this.sdk;
    try {
      const parent = s.parentSpanId
        ? api.trace.setSpanContext(api.ROOT_CONTEXT, { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: api.TraceFlags.SAMPLED, isRemote: true })
        : api.ROOT_CONTEXT;
      // startSpan asks the generator synchronously: for the trace id only when there is no parent.
      this.ids.use(s.parentSpanId ? '' : s.traceId, s.spanId);
      const span = this.tracer.startSpan(s.name, { startTime: s.startMs, attributes: s.attributes, kind: api.SpanKind.INTERNAL, root: !s.parentSpanId }, parent);
      this.ids.use('', '');
      if (s.status.code === 'error') span.setStatus({ code: api.SpanStatusCode.ERROR, message: s.status.message });
      else if (s.status.code === 'ok') span.setStatus({ code: api.SpanStatusCode.OK });
      span.end(s.endMs);
    } catch {
      // A span the SDK refuses is dropped: tracing never fails a run.
    }
  }

  async close(): Promise<void> {
    await this.provider.shutdown().catch(() => undefined);
  }
}

export class OtlpRunTracer implements RunTracer {
  async open(target: TraceExport, warn: (reason: string) => void): Promise<RunTrace> {
    return new OtlpRunTrace(await loadSdk(), target, warn);
  }
}
