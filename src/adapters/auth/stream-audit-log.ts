/**
 * Audit entries as JSON lines on a stream (the process's stdout): where a cluster's log collector keeps
 * them, for replicas whose files would not outlive their Pod. Each line is `{"kind":"svc-audit", ...entry}`
 * so a collector can route them apart from the server's own log (stderr).
 */
import type { AuditEntry, AuditLog } from '../../core/ports/auth-stores.js';

export class StreamAuditLog implements AuditLog {
  constructor(private readonly write: (line: string) => void) {}

  async append(entry: AuditEntry): Promise<void> {
    this.write(`${JSON.stringify({ kind: 'svc-audit', ...entry })}\n`);
  }
}
