/**
 * The audit trail of security events (SPEC 5.2 audit.enabled, SPEC 6 item 6). Callers pass only names,
 * ids and outcomes: no entry field ever receives a password, key or token. A failing write is logged and
 * never fails the request it describes.
 */
import type { AuditEntry, AuditLog } from '../core/ports/auth-stores.js';

/** An entry before the Auditor stamps its time. */
export type AuditEvent = Omit<AuditEntry, 'time'>;

export class Auditor {
  constructor(
    private readonly log: AuditLog | undefined,
    private readonly warn: (msg: string, f?: Record<string, unknown>) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.log !== undefined;
  }

  async record(e: AuditEvent): Promise<void> {
    if (!this.log) return;
    const entry: AuditEntry = { time: new Date(this.now()).toISOString(), ...e };
    try {
      await this.log.append(entry);
    } catch (err) {
      this.warn('Failed to write an audit entry', { action: e.action, error: String(err) });
    }
  }
}
