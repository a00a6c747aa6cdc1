/**
 * A Launcher for a step type that runs in this process (runner.ts). Output goes to the execution's logs
 * (and the step's `stdout:`/`stderr:` copies) with secrets masked; a stop or the step's timeout aborts
 * the runner and ends the execution at once. Nothing outlives the process: an execution that began in
 * an engine that died is reported interrupted (ensure resolves undefined) and its retryPolicy applies.
 */
import { appendFile } from 'node:fs/promises';
import { outputTooLarge, timedOutResult, type ExecRequest, type Launcher, type RunningExec } from '../../core/ports/executor.js';
import { execLog, type LogStore, type LogStream } from '../../core/ports/log-store.js';
import type { ExecResult } from '../../core/run/state.js';
import { createMasker, maskSecrets } from '../../core/vars/mask.js';
import type { ToolBox } from '../../core/ports/chat-tools.js';
import type { StepIO, StepOutcome, StepRun, StepRunner } from './runner.js';

/** Where the masked output of an execution goes. */
export type StepSink = (stream: LogStream, text: string) => Promise<void>;

export function inProcessLauncher(runner: StepRunner, logs: LogStore): Launcher {
  return {
    recordsStarts: false,
    runsTools: true,
    begun: () => false,
    ensure: async (req, { fresh, tools }) => (fresh ? startInProcess(runner, req, (stream, text) => logs.append(execLog(req.identity, stream, req.merged), text), tools) : undefined),
  };
}

/**
 * Runs one execution of a runner now, its output to `sink` (and the step's `stdout:`/`stderr:` copies);
 * `tools`: a chat step's tools, when it has any.
 */
export function startInProcess(runner: StepRunner, req: ExecRequest, sink: StepSink, tools?: ToolBox): RunningExec {
  const abort = new AbortController();
  const out = new Output(sink, req);
  let stopped: ExecResult | undefined;
  let settle: (r: ExecResult) => void = () => undefined;
  const interrupted = new Promise<ExecResult>((res) => { settle = res; });
  const end = (r: ExecResult): void => {
    if (stopped) return;
    stopped = r;
    abort.abort(new Error(r.error));
    settle(r);
  };
  const timer = req.timeoutMs > 0
    ? setTimeout(() => end(timedOutResult(req.timeoutMs)), req.timeoutMs)
    : undefined;
  const ran = runSafely(runner, { req, io: out.io, signal: abort.signal, ...(tools ? { tools } : {}) });
  const result = Promise.race([ran, interrupted]).then(async (outcome) => {
    if (timer) clearTimeout(timer);
    out.close();
    await out.flushed();
    return stopped ?? out.result(outcome as StepOutcome);
  });
  return { result, signal: (signal) => end({ exitCode: 1, signal, error: `signal: ${signal}` }) };
}

/** The runner's outcome; a throw is a failed step whose error is the message (masked). */
async function runSafely(runner: StepRunner, run: StepRun): Promise<StepOutcome> {
  const { req } = run;
  try {
    const o = await runner(run);
    return o.error ? { ...o, error: maskSecrets(o.error, req.secrets) } : o;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const code = typeof (e as { exitCode?: unknown }).exitCode === 'number' ? (e as { exitCode: number }).exitCode : 1;
    return { exitCode: code || 1, error: maskSecrets(message, req.secrets) };
  }
}

/** The two streams of one execution: masked, appended in order, counted for `output:`'s size limit. */
class Output {
  private readonly maskers: Record<LogStream, ReturnType<typeof createMasker>>;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private stdoutBytes = 0;
  private failure: string | undefined;
  readonly io: StepIO;

  constructor(private readonly sink: StepSink, private readonly req: ExecRequest) {
    this.maskers = { stdout: createMasker(req.secrets), stderr: createMasker(req.secrets) };
    this.io = { out: (t) => this.write('stdout', t), err: (t) => this.write('stderr', t) };
  }

  private write(stream: LogStream, raw: string): void {
    if (this.closed || raw === '') return;
    this.append(stream, this.maskers[stream].push(raw));
  }

  private append(stream: LogStream, text: string): void {
    if (text === '') return;
    if (stream === 'stdout') this.stdoutBytes += Buffer.byteLength(text);
    const copy = this.req.copies[stream];
    this.queue = this.queue.then(async () => {
      await this.sink(stream, text);
      if (copy) await appendFile(copy, text);
    }).catch((e: unknown) => { this.failure ??= `cannot write the step's ${stream}: ${e instanceof Error ? e.message : String(e)}`; });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.append('stdout', this.maskers.stdout.flush());
    this.append('stderr', this.maskers.stderr.flush());
  }

  flushed(): Promise<void> {
    return this.queue;
  }

  result(o: StepOutcome): ExecResult {
    if (this.failure) return { exitCode: o.exitCode || 1, error: this.failure };
    if (this.req.capture && this.stdoutBytes > this.req.maxOutputSize) {
      return { exitCode: o.exitCode || 1, error: outputTooLarge(this.req.maxOutputSize) };
    }
    if (o.exitCode !== 0) return { exitCode: o.exitCode, error: o.error ?? `exit status ${o.exitCode}` };
    return { exitCode: 0 };
  }
}
