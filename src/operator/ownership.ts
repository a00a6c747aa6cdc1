/**
 * Who drives which run on Kubernetes: the leading operator drives them all. A run is `mine` while this
 * process drives it; any other active run is `gone` to the leader (whoever drove it before has lost the
 * Lease, or this process restarted), and `live` to a replica that does not lead.
 */
import type { Ownership, OwnerState } from '../core/ports/ownership.js';
import { runKeyText, type RunKey } from '../core/ports/run-store.js';

export class LeaderOwnership implements Ownership {
  private readonly mine = new Set<string>();

  constructor(private readonly leader: { readonly isLeader: boolean }, private readonly identity: string) {}

  async acquire(key: RunKey): Promise<boolean> {
    if (!this.leader.isLeader) return false;
    this.mine.add(runKeyText(key));
    return true;
  }

  async release(key: RunKey): Promise<void> {
    this.mine.delete(runKeyText(key));
  }

  async state(key: RunKey): Promise<OwnerState> {
    if (this.mine.has(runKeyText(key))) return 'mine';
    return this.leader.isLeader ? 'gone' : 'live';
  }

  async holder(key: RunKey): Promise<string | undefined> {
    return this.mine.has(runKeyText(key)) || !this.leader.isLeader ? `the operator ${this.identity}` : undefined;
  }
}
