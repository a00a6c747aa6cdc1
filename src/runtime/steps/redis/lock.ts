/**
 * A lock around the step's action (config.lock): the key svc:lock:<name> set to a token of this
 * execution with NX and an expiry of lockTimeout, tried lockRetry times lockWait ms apart, and deleted
 * afterwards only if it still holds our token (a lock that expired and was taken by another holder is
 * left alone). The expiry frees the lock of a holder that died.
 */
import { randomUUID } from 'node:crypto';
import { StepError } from '../runner.js';
import type { Client } from './connect.js';
import type { LockSpec } from './plan.js';

export interface HeldLock {
  spec: LockSpec;
  token: string;
}

const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const done = (): void => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function acquireLock(client: Client, spec: LockSpec, signal: AbortSignal): Promise<HeldLock> {
  const token = randomUUID();
  for (let attempt = 1; attempt <= spec.attempts; attempt++) {
    const ok = await client.call('SET', spec.key, token, 'NX', 'PX', String(spec.ttlMs));
    if (ok === 'OK') return { spec, token };
    if (attempt < spec.attempts) await pause(spec.waitMs, signal);
    if (signal.aborted) throw signal.reason as Error;
  }
  throw new StepError(
    `redis step: lock "${spec.name}" (key ${spec.key}) is held by another holder: gave up after ${spec.attempts} attempts ${spec.waitMs} ms apart (config.lockRetry, config.lockWait)`,
  );
}

/** Deletes the lock if it is still ours; false when it had expired (and maybe been taken) meanwhile. */
export async function releaseLock(client: Client, lock: HeldLock): Promise<boolean> {
  const n = await client.call('EVAL', RELEASE, '1', lock.spec.key, lock.token);
  return n === 1;
}
