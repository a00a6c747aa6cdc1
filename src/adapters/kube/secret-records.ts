/**
 * A RecordCollection in one Kubernetes Secret (`records.json` in its data): the users, API keys and
 * webhooks of the kubernetes backend. Changes are compare-and-swap on the Secret's resourceVersion,
 * re-applied on a conflict with another replica, one at a time within this one. Reads are served from a
 * copy at most `maxAgeMs` old (default 1 s), so a change made through another replica (a disabled user,
 * a deleted key) takes effect here within that time. Only hashes are ever in the records.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { AlreadyExistsError, BadRequestError, ConflictError, DomainError } from '../../core/errors.js';
import type { RecordCollection } from '../../core/ports/records.js';
import { KeyedMutex } from '../store/local/mutex.js';
import type { Secrets } from './client.js';

const KEY = 'records.json';
/** A Secret holds at most 1 MiB of data. */
const MAX_BYTES = 1024 * 1024;
const TRIES = 8;

export interface SecretRecordsOptions {
  maxAgeMs?: number;
  now?: () => number;
}

export class SecretRecords<T extends object> implements RecordCollection<T> {
  private cached: { records: T[]; at: number } | undefined;
  private readonly mutex = new KeyedMutex();

  constructor(
    private readonly secrets: Secrets,
    private readonly name: string,
    private readonly valid: (v: unknown) => v is T,
    private readonly opts: SecretRecordsOptions = {},
  ) {}

  async all(): Promise<T[]> {
    const now = this.now();
    if (!this.cached || now - this.cached.at > (this.opts.maxAgeMs ?? 1000)) this.remember((await this.read()).records);
    return this.cached!.records.map((r) => structuredClone(r));
  }

  size(): number {
    return this.cached?.records.length ?? 0;
  }

  update<R>(change: (all: T[]) => { next: T[]; result: R }): Promise<R> {
    return this.mutex.run('all', async () => {
      for (let i = 1; ; i++) {
        const { secret, records, kept } = await this.read();
        const { next, result } = change(records.map((r) => structuredClone(r)));
        try {
          await this.write(secret, [...next, ...kept]);
          this.remember(next);
          return result;
        } catch (e) {
          if (!(e instanceof ConflictError || e instanceof AlreadyExistsError) || i >= TRIES) throw e;
        }
      }
    });
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private remember(records: T[]): void {
    this.cached = { records: records.map((r) => structuredClone(r)), at: this.now() };
  }

  /**
   * The Secret as it is now, its valid records, and the entries that are not (hand-edited, of another
   * version): never used, and written back as they were, so a change never drops what it cannot read.
   */
  private async read(): Promise<{ secret?: V1Secret; records: T[]; kept: unknown[] }> {
    const secret = await this.secrets.get(this.name);
    const data = secret?.data?.[KEY];
    if (!data) return { ...(secret ? { secret } : {}), records: [], kept: [] };
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
    } catch {
      parsed = undefined;
    }
    // Never read as empty (the next change would overwrite every record): refuse until someone mends it.
    if (!Array.isArray(parsed)) throw new DomainError('service_unavailable', `Secret ${this.name}: ${KEY} is not a JSON list of records; mend or delete it`);
    return { ...(secret ? { secret } : {}), records: parsed.filter(this.valid), kept: parsed.filter((v) => !this.valid(v)) };
  }

  private async write(secret: V1Secret | undefined, records: unknown[]): Promise<void> {
    const json = JSON.stringify(records);
    if (Buffer.byteLength(json) > MAX_BYTES * 0.75) {
      throw new BadRequestError(`too many records for one Secret (${this.name}): ${Buffer.byteLength(json)} bytes of JSON, at most ${MAX_BYTES * 0.75}`);
    }
    const data = { [KEY]: Buffer.from(json).toString('base64') };
    if (!secret) {
      await this.secrets.create({ metadata: { name: this.name, labels: { 'app.kubernetes.io/managed-by': 'svc' } }, type: 'Opaque', data });
      return;
    }
    await this.secrets.replace({ ...secret, data: { ...secret.data, ...data } });
  }
}
