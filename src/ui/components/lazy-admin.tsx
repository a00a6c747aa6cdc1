/**
 * The admin pages and the webhook panel, loaded on first use in one chunk (admin/admin.ts). Nothing else
 * imports src/ui/admin, so none of it is in the main bundle.
 */
import { lazy, Suspense, type ReactNode } from 'react';
import { Loading } from './query-state';

const load = () => import('../admin/admin');
const UsersPage = lazy(async () => ({ default: (await load()).UsersPage }));
const ApiKeysPage = lazy(async () => ({ default: (await load()).ApiKeysPage }));
const WebhooksPage = lazy(async () => ({ default: (await load()).WebhooksPage }));
const WebhookPanel = lazy(async () => ({ default: (await load()).WebhookPanel }));

function Later({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading what="the page" />}>{children}</Suspense>;
}

export const LazyUsersPage = () => <Later><UsersPage /></Later>;
export const LazyApiKeysPage = () => <Later><ApiKeysPage /></Later>;
export const LazyWebhooksPage = () => <Later><WebhooksPage /></Later>;
export const LazyWebhookPanel = ({ fileName }: { fileName: string }) => <Later><WebhookPanel fileName={fileName} /></Later>;
