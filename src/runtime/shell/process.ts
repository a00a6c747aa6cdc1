/**
 * The process executor: runs a shell-type execution as local child processes, each command in its own
 * process group (so a stop signal reaches the whole tree), started by the fork server with its output
 * going straight to the log files, or spawned from Node with both pipes streamed through the secret
 * masker. The exec record (records.ts: the process, then its exit code, appended by whoever reaped it)
 * lets a restarted engine adopt an execution still running or read how it ended.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { outputTooLarge, timedOutResult, type ExecRequest, type Launcher, type RunningExec } from '../../core/ports/executor.js';
import { localRequest, type LocalLayout, type LocalRequest } from './local.js';
import type { ExecResult } from '../../core/run/state.js';
import { commandArgvs } from '../../core/exec-argv.js';
import { adoptProcess } from './adopt.js';
import { appendOwnFileSync } from './no-follow.js';
import { codeLine, killGroup, processLine, RecordKeys, signalNumber } from './records.js';
import { processStartTicks } from './liveness.js';
import type { Capture } from './sink.js';
import { stepOutputs, type StepOutputs } from './outputs.js';
import type { ForkServer } from './fork-server.js';
import { runForked, type Exit } from './forked.js';
import { readLocalFile } from './read-file.js';
import { textOutOfArgv, type Launch } from './argv-text.js';

export interface ProcessExecutorOptions {
  /** Where each execution's logs, records and scratch files are. */
  layout: LocalLayout;
  /** Starts direct-output commands from the native helper instead of forking the engine (ADR 0008). */
  forkServer?: ForkServer;
}

export class ProcessExecutor implements Launcher {
  readonly recordsStarts = true;
  constructor(private readonly opts: ProcessExecutorOptions) {}

  private readonly recorded = new RecordKeys();

  async ensure(req: ExecRequest, opts: { fresh: boolean }): Promise<RunningExec | undefined> {
    return !opts.fresh && this.begun(req) ? this.adopt(req) : this.start(req);
  }

  /** The exec record is written before the command runs (by the child itself under the fork server). */
  begun(req: ExecRequest): boolean {
    const { recordFile, recordKey } = this.opts.layout(req);
    return this.recorded.has(recordFile, recordKey);
  }

  /**
   * The outcome of an execution a previous engine started. A multi-command step whose engine died between
   * two of its commands is not over when the adopted command succeeded: the commands after it run now.
   */
  async adopt(request: ExecRequest): Promise<RunningExec | undefined> {
    const req = localRequest(request, this.opts.layout);
    const adopted = await adoptProcess(req);
    const total = req.script !== undefined ? 1 : req.commands.length;
    if (!adopted || adopted.cmd === undefined || adopted.cmd >= total - 1) return adopted;
    const state: Live = { pid: 0, stopped: undefined, timedOut: false };
    let signal = adopted.signal;
    const next = adopted.cmd + 1;
    const result = adopted.result.then((r) => {
      if (r.exitCode !== 0 || r.signal || state.stopped) return r;
      signal = (sig) => sendSignal(state, sig);
      return runAll(req, state, this.opts.forkServer, next);
    });
    return { result, signal: (sig) => { state.stopped = sig; signal(sig); } };
  }

  start(request: ExecRequest): RunningExec {
    const req = localRequest(request, this.opts.layout);
    const state: Live = { pid: 0, stopped: undefined, timedOut: false };
    const result = runAll(req, state, this.opts.forkServer);
    return { result, signal: (sig) => sendSignal(state, sig) };
  }

  /** Steps run here as this user: a file probe reads the file itself (no process to fork). */
  readFile(path: string, maxBytes: number): Promise<string | undefined> {
    return readLocalFile(path, maxBytes);
  }
}

interface Live {
  pid: number;
  stopped: string | undefined;
  timedOut: boolean;
}

function sendSignal(state: Live, sig: string): void {
  state.stopped = sig;
  if (state.pid > 0) killGroup(state.pid, sig);
}

/** Runs the step's commands from `from` on, stopping at the first failure. */
async function runAll(req: LocalRequest, state: Live, server: ForkServer | undefined, from = 0): Promise<ExecResult> {
  prepareDirs(req);
  const scriptFile = req.script !== undefined ? await writeScript(req) : undefined;
  const outputs = stepOutputs(req);
  const deadline = req.timeoutMs > 0 ? Date.now() + req.timeoutMs : 0;
  let code = 0;
  let signal: string | undefined;
  let capture: Capture | undefined;
  try {
    // No command text in any argv: it may hold a secret, and argv is world-readable (argv-text.ts).
    const launches = commandArgvs(req, scriptFile).map((argv) => textOutOfArgv(argv, req.shell, req.env));
    const ctx: RunCtx = { outputs, state, deadline, server, execSafe: execSafe(req) };
    for (let i = from; i < launches.length; i++) {
      if (state.stopped) break;
      ({ code, signal } = await runOne(req, launches[i]!, i, ctx));
      if (code !== 0 || signal) break;
    }
  } finally {
    capture = await outputs.finish();
    if (scriptFile) await rm(scriptFile, { force: true });
  }
  return toResult(req, code, signal ?? state.stopped, state.timedOut, capture);
}

function toResult(req: LocalRequest, code: number, signal: string | undefined, timedOut: boolean, capture?: Capture): ExecResult {
  const r: ExecResult = { exitCode: code };
  if (timedOut) return timedOutResult(req.timeoutMs);
  if (signal && code !== 0) { r.signal = signal; r.error = `signal: ${signal}`; }
  else if (code !== 0) r.error = `exit status ${code}`;
  if (capture) {
    if (capture.overflow) return { exitCode: code || 1, error: outputTooLarge(req.maxOutputSize) };
    const text = capture.chunks.join('');
    r.output = req.unlogged ? text : text.trim();
  }
  return r;
}

/** `execSafe`: the working directory and environment can cross exec (no NUL byte). */
interface RunCtx { outputs: StepOutputs; state: Live; deadline: number; server: ForkServer | undefined; execSafe: boolean }

function runOne(req: LocalRequest, launch: Launch, index: number, ctx: RunCtx): Promise<Exit> {
  const direct = ctx.outputs.direct();
  const { argv, env } = launch;
  if (direct && ctx.server?.available() && ctx.execSafe && !argv.some(hasNul) && !Object.values(env).some(hasNul)) {
    return runForked(ctx.server, { argv, cwd: req.workingDir, env, ...direct, recordFile: req.files.recordFile, recordKey: req.files.recordKey, commandIndex: index }, {
      started: (pid) => onStarted(ctx, pid),
      note: (text) => ctx.outputs.note(text),
      fallback: () => runSpawned(req, launch, index, ctx),
      adopt: () => adoptProcess(req),
    });
  }
  return runSpawned(req, launch, index, ctx);
}

/** A NUL byte cannot cross exec: Node's spawn rejects it with a clear error, so such a command takes that path. */
const hasNul = (s: string): boolean => s.includes('\0');

/** The parts of a step's exec that all its commands share: checked once per step. */
function execSafe(req: LocalRequest): boolean {
  if (hasNul(req.workingDir)) return false;
  for (const k in req.env) if (hasNul(k) || hasNul(req.env[k]!)) return false;
  return true;
}

/** The process runs from now on: it can be signalled, and its deadline starts. Returns what to do once it ended. */
function onStarted(ctx: RunCtx, pid: number): () => void {
  ctx.state.pid = pid;
  if (ctx.state.stopped) killGroup(pid, ctx.state.stopped);
  const timer = ctx.deadline > 0
    ? setTimeout(() => { ctx.state.timedOut = true; killGroup(pid, 'SIGKILL'); }, Math.max(0, ctx.deadline - Date.now()))
    : undefined;
  return () => {
    if (timer) clearTimeout(timer);
    ctx.state.pid = 0;
  };
}

function runSpawned(req: LocalRequest, launch: Launch, cmd: number, ctx: RunCtx): Promise<Exit> {
  return new Promise((resolve) => {
    const [file, ...rest] = launch.argv;
    let child: ChildProcess;
    try {
      // Recorded before it runs (see StepExecutor.started); the pid follows once it is known.
      appendOwnFileSync(req.files.recordFile, processLine(req.files.recordKey, { pid: 0, cmd }));
      child = spawn(file!, rest, { cwd: req.workingDir, env: launch.env, detached: true, stdio: ctx.outputs.stdio() });
    } catch (e) {
      // Invalid arguments (a NUL byte in the environment, ...) throw synchronously: a failed step, never a crash.
      ctx.outputs.abandon();
      ctx.outputs.note(`cannot start the step: ${e instanceof Error ? e.message : String(e)}\n`);
      return resolve({ code: 127 });
    }
    // The pid is known once spawn() returns: recorded at once, so a crash from here on can adopt it.
    if (child.pid) {
      try {
        appendOwnFileSync(req.files.recordFile, processLine(req.files.recordKey, { pid: child.pid, cmd, startTicks: processStartTicks(child.pid), startedAt: new Date().toISOString(), late: true }));
      } catch { /* record gone: the run's files were removed */ }
    }
    let disarm = (): void => undefined;
    const written = ctx.outputs.attach(child);
    child.on('error', (e) => {
      ctx.outputs.note(`${e.message}\n`);
      resolve({ code: 127 });
    });
    child.on('spawn', () => {
      disarm = onStarted(ctx, child.pid ?? 0);
    });
    child.on('close', (code, sig) => {
      disarm();
      // As the fork server does once it reaped the command; synchronously, so it lands before the next
      // command of the step starts its record. (An engine that dies first leaves no code: adoption then
      // reports the outcome as unknown.)
      try { appendOwnFileSync(req.files.recordFile, codeLine(req.files.recordKey, sig ? 128 + signalNumber(sig) : code ?? 1)); } catch { /* record gone */ }
      void written.then(() => resolve(sig ? { code: 128 + signalNumber(sig), signal: sig } : { code: code ?? 1 }));
    });
  });
}

/** Directories this process already created (log and record dirs are shared by every step of an attempt). */
const made = new Set<string>();

/**
 * Exec record keys are unique per (attempt, node, execution), so no stale line can exist: nothing to remove.
 * Synchronous: a directory that exists costs one mkdir(2) and one stat(2), far less than a thread-pool
 * round trip; the working directory is checked every time (a step may have removed it).
 */
function prepareDirs(req: LocalRequest): void {
  const dirs = new Set([req.workingDir, dirname(req.files.stdout), dirname(req.files.stderr), dirname(req.files.recordFile)]);
  for (const f of [req.files.stdoutCopy, req.files.stderrCopy]) if (f) dirs.add(dirname(f));
  if (made.size > 10_000) made.clear(); // a long-lived server meets new attempt dirs forever
  for (const d of dirs) {
    if (made.has(d)) continue;
    mkdirSync(d, { recursive: true });
    if (d !== req.workingDir) made.add(d);
  }
}

async function writeScript(req: LocalRequest): Promise<string> {
  await mkdir(req.files.scratchDir, { recursive: true });
  const file = `${req.files.scratchDir}/script-${req.exec.node.replace(/[^a-zA-Z0-9_.-]/g, '_')}-${req.exec.attempt}${req.exec.item ?? ''}`;
  await writeFile(file, req.script ?? '', { mode: 0o700 });
  await chmod(file, 0o700);
  return file;
}
