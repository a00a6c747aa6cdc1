/**
 * Where a step's stdout/stderr go. Direct: the child writes straight into the log files (no pipes, no
 * copying through the engine; output written while the engine is down survives, so adoption after a
 * crash loses nothing). Piped: through the engine, when secrets must be masked, `stdout:`/`stderr:`
 * copies are requested, or the output must not be stored at all (unlogged).
 */
import { closeSync, constants, openSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import type { LocalRequest } from './local.js';
import { LOG_APPEND, LogSink, newCapture, pump, type Capture } from './sink.js';

/** The capture reads the stdout log the way LogSink appends to it: never through a link. */
const LOG_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface StepOutputs {
  /** stdio for one spawned command. */
  stdio(): StdioOptions;
  /** The log files when the child can write them directly (no masking, no copies): another process may open them. */
  direct(): { stdout: string; stderr: string } | undefined;
  /** After spawn: release per-command resources, hook pipes. Resolves when all output of the command is written. */
  attach(child: ChildProcess): Promise<void>;
  /** After a failed spawn: release what stdio() opened. */
  abandon(): void;
  /** A message of the engine itself (spawn failure) into the stderr log. */
  note(text: string): void;
  /** After the last command: flush, close, and the captured stdout for `output:`. */
  finish(): Promise<Capture | undefined>;
}

export function stepOutputs(req: LocalRequest): StepOutputs {
  const piped = req.secrets.length > 0 || !!req.files.stdoutCopy || !!req.files.stderrCopy || !!req.unlogged;
  return piped ? new PipedOutputs(req) : new DirectOutputs(req);
}

class DirectOutputs implements StepOutputs {
  private fds: number[] = [];
  /** Where this execution's part of the stdout log begins (only needed to capture it). */
  private readonly start: number;

  constructor(private readonly req: LocalRequest) {
    this.start = req.capture ? sizeOf(req.files.stdout) : 0;
  }

  direct(): { stdout: string; stderr: string } {
    return { stdout: this.req.files.stdout, stderr: this.req.files.stderr };
  }

  stdio(): StdioOptions {
    const out = openSync(this.req.files.stdout, LOG_APPEND, 0o644);
    const err = this.req.files.stderr === this.req.files.stdout ? out : openSync(this.req.files.stderr, LOG_APPEND, 0o644);
    this.fds = [...new Set([out, err])];
    return ['ignore', out, err];
  }

  attach(): Promise<void> {
    this.abandon();
    return Promise.resolve();
  }

  abandon(): void {
    for (const fd of this.fds) closeSync(fd);
    this.fds = [];
  }

  note(text: string): void {
    void appendText(this.req.files.stderr, text).catch(() => undefined);
  }

  /** The capture is this execution's part of the stdout log (retries append to the same file). */
  async finish(): Promise<Capture | undefined> {
    if (!this.req.capture) return undefined;
    const limit = this.req.maxOutputSize;
    const fh = await open(this.req.files.stdout, LOG_READ);
    try {
      const st = await fh.stat();
      const cap = newCapture();
      if (!st.isFile()) return cap;
      const buf = Buffer.alloc(Math.min(limit + 1, Math.max(0, st.size - this.start)));
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.start);
      cap.bytes = bytesRead;
      cap.overflow = bytesRead > limit;
      if (!cap.overflow) cap.chunks.push(buf.subarray(0, bytesRead).toString('utf8'));
      return cap;
    } finally {
      await fh.close();
    }
  }
}

class PipedOutputs implements StepOutputs {
  private readonly out: LogSink;
  private readonly err: LogSink;
  private readonly capture: Capture | undefined;

  constructor(private readonly req: LocalRequest) {
    const log = (path: string): string[] => (req.unlogged ? [] : [path]);
    // The `stdout:`/`stderr:` copies are files the DAG names: opened as the step would open them.
    this.out = new LogSink(log(req.files.stdout), req.files.stdoutCopy);
    // Merged logs: both sinks append (O_APPEND) to the same file; the `stdout:` copy still gets stdout only.
    this.err = new LogSink(log(req.files.stderr), req.files.stderrCopy);
    this.capture = req.capture ? newCapture() : undefined;
  }

  stdio(): StdioOptions {
    return ['ignore', 'pipe', 'pipe'];
  }

  direct(): undefined {
    return undefined;
  }

  attach(child: ChildProcess): Promise<void> {
    return Promise.all([
      pump(child.stdout!, this.out, this.req.secrets, this.capture, this.req.maxOutputSize),
      pump(child.stderr!, this.err, this.req.secrets),
    ]).then(() => undefined);
  }

  abandon(): void {
    // Pipes are created by spawn itself: nothing was opened.
  }

  note(text: string): void {
    this.err.write(text);
  }

  async finish(): Promise<Capture | undefined> {
    await Promise.all([this.out.close(), this.err.close()]);
    return this.capture;
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

async function appendText(path: string, text: string): Promise<void> {
  const fh = await open(path, LOG_APPEND, 0o644);
  try { await fh.write(text); } finally { await fh.close(); }
}
