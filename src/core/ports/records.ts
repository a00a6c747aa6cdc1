/**
 * A small collection of records (users, API keys, webhooks): read whole, changed whole, atomically.
 * The stores in auth/stores hold the rules (unique names, what may change) once for every backend;
 * adapters only keep the records: a JSON file, a file per record, memory, a Kubernetes Secret.
 * One conformance suite (adapters/records/conformance.ts) runs against every adapter.
 */
export interface RecordCollection<T> {
  /** Copies of every record, in no particular order (stores sort what they list); changing them changes nothing stored. */
  all(): Promise<T[]>;
  /**
   * Applies `change` to copies of the current records and stores `next` atomically, returning `result`.
   * `change` may throw to refuse (nothing is stored), and may run more than once when another writer
   * changed the collection meanwhile (compare-and-swap): it must not have side effects.
   */
  update<R>(change: (all: T[]) => { next: T[]; result: R }): Promise<R>;
  /** Records kept in memory (the cache-size metric). */
  size(): number;
}
