/** Ownership in memory, for engine unit tests: owners are names; a test declares an owner gone. */
import type { OwnerState, Ownership } from '../../../core/ports/ownership.js';
import { runKeyText, type RunKey } from '../../../core/ports/run-store.js';


/** The owners' table, shared by the "processes" of one test. */
export class MemoryOwners {
  readonly owners = new Map<string, string>();
  readonly dead = new Set<string>();

  /** One process's view. */
  as(me: string): Ownership {
    const stateOf = (key: RunKey): OwnerState => {
      const o = this.owners.get(runKeyText(key));
      if (o === undefined) return 'none';
      if (o === me) return 'mine';
      return this.dead.has(o) ? 'gone' : 'live';
    };
    return {
      acquire: async (key) => {
        const s = stateOf(key);
        if (s === 'live') return false;
        this.owners.set(runKeyText(key), me);
        return true;
      },
      release: async (key) => { if (stateOf(key) === 'mine') this.owners.delete(runKeyText(key)); },
      state: async (key) => stateOf(key),
      holder: async (key) => this.owners.get(runKeyText(key)),
    };
  }
}
