/**
 * Webhook management and token checks over the WebhookStore port (SPEC 4.7). Tokens leave this module
 * only in the results of create and regenerate; records never carry them.
 */
import { DomainError, NotFoundError } from '../core/errors.js';
import type { StoredWebhook, WebhookStore } from '../core/ports/webhook-store.js';
import { newWebhookToken, verifyWebhookToken } from './webhook-tokens.js';

/** The Webhook record of SPEC 2.8. */
export type Webhook = Omit<StoredWebhook, 'tokenHash'>;

export interface WithToken {
  webhook: Webhook;
  token: string;
}

export const publicWebhook = ({ tokenHash: _hidden, ...rest }: StoredWebhook): Webhook => rest;

export class WebhookService {
  constructor(private readonly store: WebhookStore, private readonly now: () => number, private readonly newId: () => string) {}

  async list(): Promise<Webhook[]> {
    return (await this.store.list()).map(publicWebhook);
  }

  async get(fileName: string): Promise<Webhook> {
    return publicWebhook(await this.require(fileName));
  }

  async create(fileName: string, createdBy = ''): Promise<WithToken> {
    const t = newWebhookToken();
    const at = this.iso();
    const saved = await this.store.create({
      id: this.newId(), dagName: fileName, tokenHash: t.tokenHash, tokenPrefix: t.tokenPrefix, enabled: true,
      createdAt: at, updatedAt: at, createdBy, lastUsedAt: '',
    });
    return { webhook: publicWebhook(saved), token: t.token };
  }

  /** A new token; the old one stops working with this write. */
  async regenerate(fileName: string): Promise<WithToken> {
    const t = newWebhookToken();
    const saved = await this.store.modify(fileName, (h) => ({ ...h, tokenHash: t.tokenHash, tokenPrefix: t.tokenPrefix, updatedAt: this.iso() }));
    return { webhook: publicWebhook(saved), token: t.token };
  }

  async toggle(fileName: string, enabled: boolean): Promise<Webhook> {
    return publicWebhook(await this.store.modify(fileName, (h) => ({ ...h, enabled, updatedAt: this.iso() })));
  }

  async delete(fileName: string): Promise<void> {
    await this.store.delete(fileName);
  }

  /**
   * The webhook a trigger may use: 401 for a token that does not match, and the same 401 when the
   * fileName has no webhook (or no DAG), so a caller without the token learns nothing about which DAGs
   * exist; checked before `enabled`, so a disabled webhook reveals nothing either. 403 disabled.
   */
  async authenticate(fileName: string, token: string): Promise<StoredWebhook> {
    const hook = await this.store.get(fileName);
    if (!hook || !verifyWebhookToken(token, hook.tokenHash)) throw new DomainError('unauthorized', 'invalid webhook token');
    if (!hook.enabled) throw new DomainError('forbidden', `the webhook of DAG ${fileName} is disabled`);
    return hook;
  }

  async markUsed(hook: StoredWebhook): Promise<void> {
    // Regenerated meanwhile: leave the new record alone; deleted meanwhile: nothing to mark.
    await this.store.modify(hook.dagName, (h) => (h.tokenHash === hook.tokenHash ? { ...h, lastUsedAt: this.iso() } : undefined))
      .catch((e: unknown) => { if (!(e instanceof NotFoundError)) throw e; });
  }

  private async require(fileName: string): Promise<StoredWebhook> {
    const hook = await this.store.get(fileName);
    if (!hook) throw new NotFoundError(`DAG ${fileName} has no webhook`, { fileName });
    return hook;
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
