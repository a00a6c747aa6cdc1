/**
 * A step executor with no processes, for engine unit tests: each execution's outcome comes from a
 * script the test gives (by step name), or is held until the test finishes it. Executions it has
 * started outlive a driver (as processes outlive a crashed engine), so a new driver adopts them.
 */
import type { ExecRequest, Launcher, RunningExec } from '../../core/ports/executor.js';
import { execName } from '../../core/naming.js';
import type { ExecResult } from '../../core/run/state.js';

/** What an execution does: end at once with this result, or wait for `finish` (or a signal). */
export type Outcome = ExecResult | 'hold';

interface Live {
  req: ExecRequest;
  result: Promise<ExecResult>;
  end: (r: ExecResult) => void;
  ended: boolean;
}

export class MemoryExecutor implements Launcher {
  readonly recordsStarts = true;
  private readonly live = new Map<string, Live>();
  /** Every start of a step's execution, by name, in order (a start that happened twice shows twice). */
  readonly starts: string[] = [];
  /** Every probe the engine ran (engine/run/probes.ts), in order. */
  readonly probes: ExecRequest[] = [];

  /** `script` answers the steps' executions; `probe` the engine's probes (by default: exit 0, no output). */
  constructor(
    private readonly script: (req: ExecRequest) => Outcome = () => ({ exitCode: 0 }),
    private readonly probe: (req: ExecRequest) => Outcome = () => ({ exitCode: 0 }),
  ) {}

  start(req: ExecRequest): RunningExec {
    const name = execName(req.identity);
    if (req.identity.probe === undefined) this.starts.push(name);
    else this.probes.push(req);
    let end!: (r: ExecResult) => void;
    const result = new Promise<ExecResult>((resolve) => { end = resolve; });
    const live: Live = { req, result, end: (r) => { if (!live.ended) { live.ended = true; end(r); } }, ended: false };
    this.live.set(name, live);
    const outcome = req.identity.probe === undefined ? this.script(req) : this.probe(req);
    if (outcome !== 'hold') live.end(outcome);
    return this.attach(live);
  }

  async ensure(req: ExecRequest, opts: { fresh: boolean }): Promise<RunningExec | undefined> {
    return !opts.fresh && this.begun(req) ? this.adopt(req) : this.start(req);
  }

  begun(req: ExecRequest): boolean {
    return this.live.has(execName(req.identity));
  }

  async adopt(req: ExecRequest): Promise<RunningExec | undefined> {
    const live = this.live.get(execName(req.identity));
    return live && this.attach(live);
  }

  /** Ends the held executions of a step (all of them: items, retries) with this result. */
  finish(node: string, result: ExecResult = { exitCode: 0 }): number {
    let n = 0;
    for (const l of this.live.values()) {
      if (l.req.identity.node === node && !l.ended) { l.end(result); n += 1; }
    }
    return n;
  }

  /** Held executions of a step. */
  holding(node: string): number {
    return [...this.live.values()].filter((l) => l.req.identity.node === node && !l.ended).length;
  }

  private attach(live: Live): RunningExec {
    return { result: live.result, signal: (sig) => live.end({ exitCode: 143, signal: sig, error: `signal: ${sig}` }) };
  }
}
