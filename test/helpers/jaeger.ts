/**
 * A real OTLP receiver for tests: Jaeger v2 (an OpenTelemetry Collector distribution), as built by
 * hack/jaeger.sh (or the binary SVC_JAEGER_BIN names), started on 127.0.0.1 with a config of its own:
 * OTLP/HTTP in, traces kept in memory, the HTTP query API to read them back; free ports only, no
 * telemetry server of its own. Stopped by stop(). Nothing listens beyond loopback.
 */
import { builtServer, describeWith, freePort, stopProcess } from './needs.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const server = builtServer('Jaeger', 'jaeger.sh', 'SVC_JAEGER_BIN');

/** The Jaeger binary: SVC_JAEGER_BIN, else the one hack/jaeger.sh cached; undefined when neither exists. */
export const jaegerBinary = server.binary;

/** Why Jaeger tests cannot run here, or undefined. */
export const jaegerSkipReason = server.skipReason;

/** describe() for tests that need Jaeger. Without it: under CI=true the suite fails; elsewhere it is skipped loudly. */
export function describeJaeger(name: string, fn: () => void): void {
  describeWith('Jaeger', jaegerSkipReason(), name, fn);
}

/** A span as the query API returns it, flattened: tags and the process's (resource) tags as maps. */
export interface ReadSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  tags: Record<string, unknown>;
  resource: Record<string, unknown>;
  startUs: number;
  durationUs: number;
}

export interface Jaeger {
  /** The OTLP/HTTP traces URL to export to. */
  otlpUrl: string;
  queryUrl: string;
  /** Every span of the traces the service sent, once at least `count` arrived (polls up to `timeoutMs`). */
  spans(service: string, count: number, timeoutMs?: number): Promise<ReadSpan[]>;
  stop(): Promise<void>;
}

interface ApiTag { key: string; value: unknown }
interface ApiSpan {
  traceID: string; spanID: string; operationName: string; processID: string; startTime: number; duration: number;
  references?: { refType: string; traceID: string; spanID: string }[]; tags?: ApiTag[];
}
interface ApiTrace { traceID: string; spans: ApiSpan[]; processes: Record<string, { serviceName: string; tags?: ApiTag[] }> }

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const tagMap = (tags: ApiTag[] | undefined): Record<string, unknown> => Object.fromEntries((tags ?? []).map((t) => [t.key, t.value]));

function flatten(t: ApiTrace): ReadSpan[] {
  return t.spans.map((s) => {
    const parent = s.references?.find((r) => r.refType === 'CHILD_OF');
    const proc = t.processes[s.processID];
    return {
      traceId: s.traceID, spanId: s.spanID, ...(parent ? { parentSpanId: parent.spanID } : {}), name: s.operationName,
      service: proc?.serviceName ?? '', tags: tagMap(s.tags), resource: tagMap(proc?.tags), startUs: s.startTime, durationUs: s.duration,
    };
  });
}

function config(p: { otlp: number; http: number; grpc: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      mem:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: mem
    http:
      endpoint: 127.0.0.1:${p.http}
    grpc:
      endpoint: 127.0.0.1:${p.grpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${p.otlp}
exporters:
  jaeger_storage_exporter:
    trace_storage: mem
`;
}

/** Resolves once both the query API and the OTLP receiver answer; rejects when Jaeger exits first or takes too long. */
async function ready(proc: ChildProcess, otlpUrl: string, queryUrl: string, stderr: () => string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`Jaeger exited (${proc.exitCode ?? proc.signalCode}): ${stderr().slice(-2000)}`);
    const query = await fetch(`${queryUrl}/api/services`).then((r) => r.ok, () => false);
    // An empty ExportTraceServiceRequest is a valid protobuf message: 200 once the receiver is up.
    const otlp = query && await fetch(otlpUrl, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array() }).then((r) => r.ok, () => false);
    if (otlp) return;
    await sleep(50);
  }
  throw new Error(`Jaeger did not answer within ${timeoutMs} ms: ${stderr().slice(-2000)}`);
}

async function startOnce(bin: string, dir: string): Promise<Jaeger> {
  const ports = { otlp: await freePort(), http: await freePort(), grpc: await freePort() };
  const file = join(dir, 'jaeger.yaml');
  writeFileSync(file, config(ports));
  const otlpUrl = `http://127.0.0.1:${ports.otlp}/v1/traces`;
  const queryUrl = `http://127.0.0.1:${ports.http}`;
  const proc = spawn(bin, ['--config', `file:${file}`], { env: { PATH: process.env.PATH, HOME: dir }, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-8000); });
  try {
    await ready(proc, otlpUrl, queryUrl, () => stderr);
  } catch (e) {
    await stopProcess(proc);
    throw e;
  }
  const read = async (service: string): Promise<ReadSpan[]> => {
    const r = await fetch(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&lookback=1h&limit=100`);
    if (!r.ok) return [];
    const body = await r.json() as { data: ApiTrace[] | null };
    return (body.data ?? []).flatMap(flatten);
  };
  return {
    otlpUrl, queryUrl,
    async spans(service, count, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      let got: ReadSpan[] = [];
      while (Date.now() < until) {
        got = await read(service);
        if (got.length >= count) return got;
        await sleep(100);
      }
      throw new Error(`Jaeger holds ${got.length} spans of service ${service}, not ${count}: ${got.map((s) => s.name).join(', ')}`);
    },
    stop: () => stopProcess(proc),
  };
}

/** Starts Jaeger (a second try on other ports if one was taken meanwhile). */
export async function startJaeger(): Promise<Jaeger> {
  const bin = jaegerBinary();
  if (bin === undefined) throw new Error(jaegerSkipReason());
  const dir = mkdtempSync(join(tmpdir(), 'svc-jaeger-'));
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  for (let attempt = 1; ; attempt++) {
    try {
      const server = await startOnce(bin, dir);
      return { ...server, stop: async () => { await server.stop(); cleanup(); } };
    } catch (e) {
      if (attempt >= 2) {
        cleanup();
        throw e;
      }
    }
  }
}
