/**
 * The `redis` step type (SPEC 2.6, docs/steps/redis.md): one command, a pipeline or transaction, or a
 * Lua script, optionally under a lock, against a standalone server, a sentinel-managed master or a
 * cluster; the reply goes to stdout as JSON, JSON lines, raw text or CSV. The whole step is bounded by
 * config.timeout; a stop or timeout closes the connection at once.
 */
import { StepError, type StepIO, type StepOutcome, type StepRunner } from '../runner.js';
import type { ExecRequest } from '../../../core/ports/executor.js';
import { causeOf, describeTarget, open, prepare, type Connected } from './connect.js';
import { execute } from './execute.js';
import { acquireLock, releaseLock, type HeldLock } from './lock.js';
import { parsePlan, type Plan } from './plan.js';
import { render } from './render.js';

const MAX_CONNECT_MS = 10_000;

export const runRedis: StepRunner = async ({ req, io, signal }) => {
  const plan = parsePlan(req.config, req.commands, req.script);
  if (signal.aborted) throw new StepError('redis step: stopped');
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(new StepError('redis step: stopped'));
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = plan.timeoutMs > 0
    ? setTimeout(() => stop.abort(new StepError(`redis step: not done within ${plan.timeoutMs / 1000}s (config.timeout)`)), plan.timeoutMs)
    : undefined;
  try {
    return await session(plan, req, io, stop.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
};

/** `p`, or the abort's reason as soon as `signal` aborts (p's own later failure is then ignored). */
function guard<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  p.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function session(plan: Plan, req: ExecRequest, io: StepIO, signal: AbortSignal): Promise<StepOutcome> {
  const connectMs = plan.timeoutMs > 0 ? Math.min(plan.timeoutMs, MAX_CONNECT_MS) : MAX_CONNECT_MS;
  const conn = prepare(plan.connection, req.workingDir, connectMs);
  signal.addEventListener('abort', conn.close, { once: true });
  try {
    await guard(open(conn, plan.connection), signal);
    const lock = plan.lock ? await guard(acquireLock(conn.client, plan.lock, signal), signal) : undefined;
    let result;
    try {
      result = await guard(execute(conn.client, plan.action, req.workingDir), signal);
    } finally {
      if (lock) await unlock(conn, lock, { plan, io, signal, workingDir: req.workingDir });
    }
    io.out(render(result.reply, plan.format, plan.nullValue));
    if (result.failures.length === 0) return { exitCode: 0 };
    return { exitCode: 1, error: `redis step: ${result.failures.length} of the pipeline's commands failed: ${result.failures.join('; ')}` };
  } catch (e) {
    throw failure(e, plan, conn, signal);
  } finally {
    signal.removeEventListener('abort', conn.close);
    conn.close();
  }
}

/** A StepError for anything thrown: the abort's reason, our own errors, or a lost connection with its cause. */
function failure(e: unknown, plan: Plan, conn: Connected, signal: AbortSignal): Error {
  if (signal.aborted) return signal.reason as Error;
  if (e instanceof StepError) return e;
  return new StepError(`redis step: the connection to ${describeTarget(plan.connection)} failed: ${causeOf(e, conn.lastError())}`);
}

/**
 * Releases the lock after the action. After a stop or timeout the step's connection is closed, so a
 * fresh one releases it in the background (best effort: the lock's expiry frees it otherwise).
 */
async function unlock(conn: Connected, lock: HeldLock, at: { plan: Plan; io: StepIO; signal: AbortSignal; workingDir: string }): Promise<void> {
  const { plan, io, signal } = at;
  if (signal.aborted) {
    const fresh = prepare(plan.connection, at.workingDir, 2000);
    void open(fresh, plan.connection).then(() => releaseLock(fresh.client, lock)).catch(() => undefined).finally(fresh.close);
    return;
  }
  try {
    if (!(await releaseLock(conn.client, lock))) {
      io.err(`redis step: lock "${lock.spec.name}" had expired before the step released it (config.lockTimeout)\n`);
    }
  } catch (e) {
    io.err(`redis step: could not release lock "${lock.spec.name}" (it expires by itself): ${causeOf(e, conn.lastError())}\n`);
  }
}
