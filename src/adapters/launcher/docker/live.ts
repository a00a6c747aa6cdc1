/**
 * The state of one execution while it runs: what is running now (an exec or the container itself), and
 * whether it was stopped or timed out. A signal that comes before anything runs is kept and delivered
 * to whatever starts next; once stopped, no further command starts.
 */
import { timedOutResult, outputTooLarge } from '../../../core/ports/executor.js';
import type { ExecResult } from '../../../core/run/state.js';
import type { Captured } from './outputs.js';

export class Live {
  stopped: string | undefined;
  timedOut = false;
  private current: ((sig: string) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;

  signal(sig: string): void {
    this.stopped = sig;
    this.current?.(sig);
  }

  /** `send` signals what runs now; it gets a signal that came while nothing ran. */
  running(send: (sig: string) => void): void {
    this.current = send;
    if (this.stopped) send(this.stopped);
  }

  idle(): void {
    this.current = undefined;
  }

  /** The step's timeoutSec: the process is killed and the result says it timed out. */
  deadline(ms: number): void {
    if (ms > 0) this.timer = setTimeout(() => { this.timedOut = true; this.signal('SIGKILL'); }, ms);
  }

  done(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

/** How an execution ended, as the process launcher reports it. */
export function toResult(code: number, live: Pick<Live, 'stopped' | 'timedOut'>, opts: { timeoutMs: number; maxOutputSize: number; unlogged?: boolean | undefined }, captured?: Captured): ExecResult {
  if (live.timedOut) return timedOutResult(opts.timeoutMs);
  const r: ExecResult = { exitCode: code };
  // A stopped step that ended non-zero was ended by its stop (its trap may exit with any code), as on the
  // host. An exit code above 128 alone says nothing sure: `exit 130` looks the same as a SIGINT.
  const sig = code === 0 ? undefined : live.stopped;
  if (sig) { r.signal = sig; r.error = `signal: ${sig}`; }
  else if (code !== 0) r.error = `exit status ${code}`;
  if (captured) {
    if (captured.overflow) return { exitCode: code || 1, error: outputTooLarge(opts.maxOutputSize) };
    r.output = opts.unlogged ? captured.text : captured.text.trim();
  }
  return r;
}
