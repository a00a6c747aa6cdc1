/** Time and identity are injected so the core stays deterministic. */
export interface Clock {
  now(): number;
}
export interface IdGen {
  /** A new unique, time-ordered id (run ids, attempt ids). */
  next(): string;
}
