/**
 * A token bucket for Pod creation (Argo's lesson: a burst of runs must not flood the API server): `qps`
 * tokens a second, at most `burst` saved up. take() resolves when a token is free, in arrival order.
 * Time and sleep are injected (tests run without waiting).
 */
export interface RateClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: RateClock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

export class TokenBucket {
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly qps: number, private readonly burst: number, private readonly clock: RateClock = realClock) {
    this.tokens = burst;
    this.last = clock.now();
  }

  take(): Promise<void> {
    const turn = this.queue.then(() => this.next());
    this.queue = turn;
    return turn;
  }

  private async next(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.clock.sleep(Math.ceil(((1 - this.tokens) / this.qps) * 1000));
    }
  }
}
