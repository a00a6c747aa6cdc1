/**
 * The admin chunk: everything only an admin uses (users, API keys, webhooks), loaded with the first of
 * these pages (app.tsx and the DAG page's Webhook tab import it lazily), so the main bundle stays small.
 */
export { ApiKeysPage } from './api-keys-page';
export { UsersPage } from './users-page';
export { WebhookPanel } from './webhook-panel';
export { WebhooksPage } from './webhooks-page';
