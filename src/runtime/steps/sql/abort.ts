/**
 * The end of a database step's work: the engine's signal (stop, the step's timeoutSec) or the step's
 * own `config.timeout`, whichever comes first. `cut` races a promise against it, so the step gives up
 * at once whatever the driver is doing; what the driver still holds is closed by the `onAbort` hook.
 */
import { StepError } from '../runner.js';

export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private timedOut = false;
  private readonly forward = (): void => this.controller.abort();

  constructor(private readonly type: string, private readonly engine: AbortSignal, private readonly timeoutMs: number) {
    if (timeoutMs > 0) this.timer = setTimeout(() => { this.timedOut = true; this.controller.abort(); }, timeoutMs);
    if (engine.aborted) this.controller.abort();
    else engine.addEventListener('abort', this.forward, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The error of a cut: the step's own timeout, or a stop (whose error the engine reports itself). */
  reason(): StepError {
    return this.timedOut
      ? new StepError(`${this.type} step: timed out after ${this.timeoutMs / 1000}s (config.timeout)`)
      : new StepError(`${this.type} step: stopped`);
  }

  onAbort(f: () => void): void {
    if (this.signal.aborted) f();
    else this.signal.addEventListener('abort', f, { once: true });
  }

  /** The promise's outcome, or the deadline's error as soon as it passes (the promise is then ignored). */
  cut<T>(p: Promise<T>): Promise<T> {
    if (this.signal.aborted) {
      p.catch(() => undefined);
      return Promise.reject(this.reason());
    }
    return new Promise<T>((resolve, reject) => {
      const abort = (): void => reject(this.reason());
      this.signal.addEventListener('abort', abort, { once: true });
      p.then(
        (v) => { this.signal.removeEventListener('abort', abort); resolve(v); },
        (e: unknown) => { this.signal.removeEventListener('abort', abort); reject(e); },
      );
    });
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.engine.removeEventListener('abort', this.forward);
  }
}
