/**
 * AuditLog on local disk: `<dataDir>/audit/audit-YYYY-MM-DD.jsonl`, one JSON object per line, appended
 * (O_APPEND: concurrent appends of small lines never interleave). One file per UTC day keeps files
 * small and makes retention a matter of deleting old files.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditEntry, AuditLog } from '../../core/ports/auth-stores.js';

export class FileAuditLog implements AuditLog {
  private ready?: Promise<unknown>;

  constructor(private readonly dir: string) {}

  static under(dataDir: string): FileAuditLog {
    return new FileAuditLog(join(dataDir, 'audit'));
  }

  async append(entry: AuditEntry): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true, mode: 0o700 });
    await this.ready;
    await appendFile(join(this.dir, `audit-${entry.time.slice(0, 10)}.jsonl`), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  }
}
