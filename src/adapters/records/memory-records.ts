/** A RecordCollection in memory (tests, and the in-memory wiring of the engine's ports). */
import type { RecordCollection } from '../../core/ports/records.js';

export class MemoryRecords<T extends object> implements RecordCollection<T> {
  private records: T[] = [];

  async all(): Promise<T[]> {
    return this.records.map((r) => structuredClone(r));
  }

  /** Synchronous from read to write: concurrent updates apply one after the other. */
  async update<R>(change: (all: T[]) => { next: T[]; result: R }): Promise<R> {
    const { next, result } = change(this.records.map((r) => structuredClone(r)));
    this.records = next.map((r) => structuredClone(r));
    return result;
  }

  size(): number {
    return this.records.length;
  }
}
