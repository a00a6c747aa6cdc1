/**
 * Admission of a run under SPEC 4.4's rules (singleton, maxActiveRuns) is a check and then a create.
 * Where several processes serve one store (API replicas over one namespace), the pairs of two processes
 * must not interleave, or both pass the check. An AdmissionLock serialises them across processes:
 * hold() runs `fn` while no other process holds the lock for that DAG name. Within one process the
 * caller serialises already; without an AdmissionLock only that in-process order is kept.
 */
export interface AdmissionLock {
  hold<T>(dagName: string, fn: () => Promise<T>): Promise<T>;
}
