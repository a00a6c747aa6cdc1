/**
 * What a traced run exports (SPEC 2.2 `otel`): one span per run, one per execution of a step (each
 * retry, repeat and parallel item its own), with deterministic identities:
 * - the trace of a run is its root run's (a sub-DAG run joins its caller's trace; a retried run joins
 *   the trace of its earlier attempts);
 * - a run's span id comes from (DAG, run id, attempt id); an execution's from the same hash as the id of
 *   the sub-DAG run it calls (subdag.ts childRunId), so a sub-DAG run finds its calling step's span from
 *   its own run id alone: no state is handed over, whichever process drives which run.
 * Every text that comes from a run (errors, item values, resource values) is masked by the caller.
 */
import { createHash } from 'node:crypto';
import type { SpanAttributes, SpanRecord, TraceExport } from '../../core/ports/run-tracer.js';
import type { DagRunResource, RunRef } from '../../core/resources.js';
import type { ExecRef, ExecResult, NodeState } from '../../core/run/state.js';
import { stepOf } from '../../core/run/state.js';
import { RunStatus, isRunSuccess, runStatusLabel } from '../../core/run/status.js';
import type { OtelConfig } from '../../core/spec/types.js';
import { childRunId } from './subdag.js';

/** The OTLP/HTTP default (the OpenTelemetry exporters' own). */
export const DEFAULT_OTLP_TRACES_URL = 'http://localhost:4318/v1/traces';
/** The OpenTelemetry exporters' default bound of one export. */
export const DEFAULT_OTLP_TIMEOUT_MS = 10_000;
/** An item value longer than this is cut in its span attribute. */
const MAX_ITEM_CHARS = 256;

const hexOf = (text: string, digits: number): string => createHash('sha256').update(text).digest('hex').slice(0, digits);

export const traceIdOf = (root: RunRef): string => hexOf(`svc-trace/${root.name}/${root.dagRunId}`, 32);

export const runSpanIdOf = (run: DagRunResource): string =>
  hexOf(`svc-run/${run.spec.dagName}/${run.spec.dagRunId}/${run.status.attemptId}`, 16);

export const execSpanIdOf = (run: DagRunResource, exec: ExecRef): string => childRunId(run, exec).slice(0, 16);

/** The span of the step execution that called this sub-DAG run (its id is that execution's hash), if any. */
export function callerSpanIdOf(run: DagRunResource): string | undefined {
  return run.spec.parent && /^[0-9a-f]{32}$/.test(run.spec.dagRunId) ? run.spec.dagRunId.slice(0, 16) : undefined;
}

/**
 * The OTLP/HTTP traces URL of an `endpoint`: a full URL as given (`/v1/traces` added when it has no
 * path); `host:port` gets `http://` when `insecure`, else `https://`; none is the OTLP default.
 */
export function otlpTracesUrl(endpoint: string, insecure: boolean): string {
  const e = endpoint.trim();
  if (e === '') return DEFAULT_OTLP_TRACES_URL;
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(e) ? e : `${insecure ? 'http' : 'https'}://${e}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`otel.endpoint: ${url.protocol} is not http or https (OTLP/HTTP only)`);
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/v1/traces';
  return url.toString();
}

/** The export of an `otel` block, its strings expanded by `x` and resource values masked by `mask`. */
export function traceExportOf(otel: OtelConfig, x: (s: string) => string, mask: (s: string) => string): TraceExport {
  const map = (m: Record<string, string>, f: (s: string) => string): Record<string, string> =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, f(v)]));
  return {
    url: otlpTracesUrl(x(otel.endpoint ?? ''), otel.insecure),
    headers: map(otel.headers, x),
    insecure: otel.insecure,
    timeoutMs: otel.timeoutMs ?? DEFAULT_OTLP_TIMEOUT_MS,
    resource: { 'service.name': 'svc', ...map(otel.resource, (v) => mask(x(v))) },
  };
}

const runAttributes = (run: DagRunResource): SpanAttributes => ({
  'svc.dag.name': run.spec.dagName,
  'svc.dag_run.id': run.spec.dagRunId,
  'svc.dag_run.attempt_id': run.status.attemptId,
});

/** The run's span, as it ended. */
export function runSpan(run: DagRunResource, startMs: number, endMs: number, mask: (s: string) => string): SpanRecord {
  const s = run.status.run;
  const attributes: SpanAttributes = { ...runAttributes(run), 'svc.dag_run.status': runStatusLabel(s.status), 'svc.dag_run.trigger': run.spec.trigger };
  if (run.spec.parent) attributes['svc.dag_run.parent.id'] = run.spec.parent.dagRunId;
  if (run.spec.root.dagRunId !== run.spec.dagRunId) attributes['svc.dag_run.root.id'] = run.spec.root.dagRunId;
  const error = mask(s.error);
  if (error !== '') attributes['svc.dag_run.error'] = error;
  const failed = s.status === RunStatus.Failed || s.status === RunStatus.Aborted || s.status === RunStatus.Rejected;
  const parentSpanId = callerSpanIdOf(run);
  return {
    traceId: traceIdOf(run.spec.root), spanId: runSpanIdOf(run), ...(parentSpanId ? { parentSpanId } : {}),
    name: run.spec.dagName, startMs, endMs: Math.max(startMs, endMs), attributes,
    status: failed ? { code: 'error', message: error || runStatusLabel(s.status) } : { code: isRunSuccess(s.status) ? 'ok' : 'unset' },
  };
}

/** The outcome of one execution, read off its result alone (the node may go on: retry, repeat). */
export function execOutcome(r: ExecResult): { status: string; error: string } {
  const error = r.error ?? (r.exitCode !== 0 ? `exit status ${r.exitCode}` : '');
  if (r.skipped) return { status: 'skipped', error: '' };
  if (r.waiting) return { status: 'waiting', error: '' };
  if (r.signal) return { status: 'aborted', error: error || `killed by ${r.signal}` };
  if (r.exitCode !== 0 || error !== '') return { status: 'failed', error };
  return { status: r.partial ? 'partially_succeeded' : 'succeeded', error: '' };
}

export interface ExecEnd {
  run: DagRunResource;
  node: NodeState;
  exec: ExecRef;
  result: ExecResult;
  startMs: number;
  endMs: number;
}

/** One execution's span: a child of the run's span. */
export function execSpan(e: ExecEnd, mask: (s: string) => string): SpanRecord {
  const { run, node, exec, result } = e;
  const { status, error } = execOutcome(result);
  const attributes: SpanAttributes = {
    ...runAttributes(run), 'svc.step.name': node.name, 'svc.step.attempt': exec.attempt + 1,
    'svc.step.status': status, 'svc.step.exit_code': result.exitCode,
  };
  if (node.handler) attributes['svc.step.handler'] = node.handler;
  if (exec.item !== undefined) {
    attributes['svc.step.item.index'] = exec.item;
    const item = node.items?.find((i) => i.index === exec.item)?.item;
    if (item !== undefined) attributes['svc.step.item'] = mask(item).slice(0, MAX_ITEM_CHARS);
  }
  if (stepOf(run.spec.definition, node)?.call !== undefined) attributes['svc.step.sub_dag_run.id'] = childRunId(run, exec);
  const masked = mask(error);
  if (masked !== '') attributes['svc.step.error'] = masked;
  return {
    traceId: traceIdOf(run.spec.root), spanId: execSpanIdOf(run, exec), parentSpanId: runSpanIdOf(run),
    name: node.name, startMs: e.startMs, endMs: Math.max(e.startMs, e.endMs), attributes,
    status: status === 'failed' || status === 'aborted' ? { code: 'error', message: masked } : { code: status === 'waiting' ? 'unset' : 'ok' },
  };
}
