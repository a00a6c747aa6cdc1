/** WebhookStore over a RecordCollection: one webhook per DAG (by fileName). No token is stored, only its hash. */
import { AlreadyExistsError, BadRequestError, NotFoundError } from '../../core/errors.js';
import type { RecordCollection } from '../../core/ports/records.js';
import type { StoredWebhook, WebhookStore } from '../../core/ports/webhook-store.js';
import { isValidFileName } from '../../core/spec/names.js';

export class RecordWebhookStore implements WebhookStore {
  constructor(private readonly records: RecordCollection<StoredWebhook>) {}

  async list(): Promise<StoredWebhook[]> {
    return (await this.records.all()).sort((a, b) => a.dagName.localeCompare(b.dagName));
  }

  async get(dagName: string): Promise<StoredWebhook | undefined> {
    const name = checked(dagName);
    return (await this.records.all()).find((h) => h.dagName === name);
  }

  async create(hook: StoredWebhook): Promise<StoredWebhook> {
    const name = checked(hook.dagName);
    return this.records.update((all) => {
      if (all.some((h) => h.dagName === name)) throw new AlreadyExistsError(`DAG ${name} already has a webhook`, { fileName: name });
      return { next: [...all, hook], result: { ...hook } };
    });
  }

  /** `change` returns undefined to keep the record as it is. */
  async modify(dagName: string, change: (current: StoredWebhook) => StoredWebhook | undefined): Promise<StoredWebhook> {
    const name = checked(dagName);
    return this.records.update((all) => {
      const i = all.findIndex((h) => h.dagName === name);
      if (i < 0) throw new NotFoundError(`DAG ${name} has no webhook`, { fileName: name });
      const current = all[i] as StoredWebhook;
      const changed = change({ ...current });
      if (!changed) return { next: all, result: current };
      const next = { ...changed, dagName: current.dagName, id: current.id };
      return { next: all.map((h, j) => (j === i ? next : h)), result: { ...next } };
    });
  }

  async delete(dagName: string): Promise<void> {
    const name = checked(dagName);
    return this.records.update((all) => {
      if (!all.some((h) => h.dagName === name)) throw new NotFoundError(`DAG ${name} has no webhook`, { fileName: name });
      return { next: all.filter((h) => h.dagName !== name), result: undefined };
    });
  }

  cacheSize(): number {
    return this.records.size();
  }
}

function checked(dagName: string): string {
  if (!isValidFileName(dagName)) throw new BadRequestError(`invalid fileName ${JSON.stringify(dagName)}`);
  return dagName;
}
