/**
 * Brute-force resistance for password logins (docs/auth.md "Failed logins"). Per username: the first 4
 * failures cost nothing more than the slow hash; the 5th locks the name for 30 s, each further failure
 * doubles the lock, up to 15 min. While locked every attempt is refused at once with 429 and
 * Retry-After, without hashing (a locked name costs no CPU). A success clears the count; failures are
 * forgotten 15 min after the last one. Memory is bounded: at most MAX_TRACKED names; the oldest unlocked
 * name is dropped first, so a flood of junk names cannot evict a real lock. One attempt per name at a
 * time: a second concurrent attempt is refused (429), so parallel requests cannot all slip in before the
 * failures of the first ones are counted.
 */
export const FREE_FAILURES = 4;
export const FIRST_LOCK_MS = 30_000;
export const MAX_LOCK_MS = 15 * 60_000;
const FORGET_AFTER_MS = 15 * 60_000;
const MAX_TRACKED = 10_000;

interface Entry { failures: number; lockedUntil: number; lastFailure: number }

export class LoginThrottle {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Set<string>();

  /** Claims the single attempt slot of a name; false when an attempt for it is already running. */
  acquire(name: string): boolean {
    const key = name.toLowerCase();
    if (this.inflight.has(key)) return false;
    this.inflight.add(key);
    return true;
  }

  release(name: string): void {
    this.inflight.delete(name.toLowerCase());
  }

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds until `name` may try again, or 0. */
  retryAfterMs(name: string): number {
    const e = this.current(name);
    return e ? Math.max(0, e.lockedUntil - this.now()) : 0;
  }

  /** Records a failure; returns the lock it caused in ms (0 when none). */
  fail(name: string): number {
    const key = name.toLowerCase();
    const e = this.current(name) ?? { failures: 0, lockedUntil: 0, lastFailure: 0 };
    e.failures += 1;
    e.lastFailure = this.now();
    const lock = e.failures > FREE_FAILURES ? Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** (e.failures - FREE_FAILURES - 1)) : 0;
    e.lockedUntil = lock ? this.now() + lock : 0;
    this.entries.delete(key);
    this.entries.set(key, e);
    if (this.entries.size > MAX_TRACKED) this.evictOne();
    return lock;
  }

  private evictOne(): void {
    const now = this.now();
    for (const [k, e] of this.entries) {
      if (e.lockedUntil <= now) return void this.entries.delete(k);
    }
    this.entries.delete(this.entries.keys().next().value as string);
  }

  succeed(name: string): void {
    this.entries.delete(name.toLowerCase());
  }

  private current(name: string): Entry | undefined {
    const key = name.toLowerCase();
    const e = this.entries.get(key);
    if (e && this.now() - e.lastFailure > FORGET_AFTER_MS && this.now() >= e.lockedUntil) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }
}
