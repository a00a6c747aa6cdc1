/**
 * Traces of runs and steps (SPEC 2.2 `otel`): the engine decides which spans a run makes, with which
 * identities and attributes, and masks what it writes; an adapter only exports them (OTLP). Identities
 * are deterministic (engine/run/trace-spans.ts): the same run or execution always has the same span id,
 * so a driver that resumes a run after a crash, or another process that drives a sub-DAG run, links
 * its spans into the same trace without handing any state over. A span is handed over whole, once it
 * has ended: an export that fails or hangs is a warning, never the run's failure.
 */

/** Where and how one run's spans are exported: the DAG's `otel` block, expanded and defaulted. */
export interface TraceExport {
  /** The OTLP/HTTP traces URL (`.../v1/traces`). */
  url: string;
  /** Sent with every export request (an `Authorization` token, ...): never part of a span. */
  headers: Record<string, string>;
  /** With an https URL: the receiver's certificate is not verified. */
  insecure: boolean;
  /** Bound of one export request, and of the flush when the run ends (ms). */
  timeoutMs: number;
  /** Resource attributes of every span (`service.name` included). */
  resource: Record<string, string>;
}

export type SpanAttributes = Record<string, string | number | boolean>;

/** One ended span. Ids are lowercase hex: trace 32 digits, span 16. Times in ms since the epoch. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  /** `error`: the span's status is ERROR with this (masked) message; `ok`: OK; `unset`: neither. */
  status: { code: 'ok' | 'unset' } | { code: 'error'; message: string };
}

/** The export of one run's spans. */
export interface RunTrace {
  /** Queues an ended span; never throws, never waits on the network. */
  record(span: SpanRecord): void;
  /** Sends what is queued and lets go of the exporter: resolves within the export's timeout, never rejects. */
  close(): Promise<void>;
}

export interface RunTracer {
  /**
   * An export for one run. `warn` is told (once per failure, with a reason that names no header value)
   * when spans could not be delivered. Rejects only when the exporter cannot be set up at all.
   */
  open(target: TraceExport, warn: (reason: string) => void): Promise<RunTrace>;
}
