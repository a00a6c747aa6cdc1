/**
 * The admin pages' queries and mutations (users, API keys, webhooks; SPEC 4.2, 4.6, 4.7, all Admin). They
 * live in the admin chunk, not in api/queries.ts, so the main bundle does not carry them. A created key or
 * token is only in the mutation's answer: callers show it once and reset the mutation when done.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, must, orNull } from '../api/client';
import type { Role, User } from '../api/types';
import { session } from '../auth/session';

export const adminKeys = {
  users: ['admin', 'users'] as const,
  apiKeys: ['admin', 'api-keys'] as const,
  webhooks: ['admin', 'webhooks'] as const,
  webhook: (fileName: string) => ['admin', 'webhooks', fileName] as const,
};

export const ROLES: readonly Role[] = ['admin', 'manager', 'operator', 'viewer'];

export function useUsers() {
  return useQuery({ queryKey: adminKeys.users, queryFn: async ({ signal }) => (await must(api.GET('/users', { signal }))).users });
}

/** A user changed: the list is read again; when it is the session's own user, the session learns its role. */
function useUserSettled() {
  const qc = useQueryClient();
  return async (user?: User) => {
    if (user) session.userChanged({ id: user.id, username: user.username, role: user.role });
    await qc.invalidateQueries({ queryKey: adminKeys.users });
  };
}

export function useCreateUser() {
  const settled = useUserSettled();
  return useMutation({
    mutationFn: (body: { username: string; password: string; role: Role }) => must(api.POST('/users', { body })),
    onSuccess: () => settled(),
  });
}

export function useSetRole() {
  const settled = useUserSettled();
  return useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: Role }) => must(api.PUT('/users/{userId}', { params: { path: { userId } }, body: { role } })),
    onSettled: (r) => settled(r?.user),
  });
}

export function useSetDisabled() {
  const settled = useUserSettled();
  return useMutation({
    mutationFn: ({ userId, isDisabled }: { userId: string; isDisabled: boolean }) =>
      must(api.PATCH('/users/{userId}', { params: { path: { userId } }, body: { isDisabled } })),
    onSettled: () => settled(),
  });
}

export function useResetPassword() {
  const settled = useUserSettled();
  return useMutation({
    mutationFn: ({ userId, newPassword }: { userId: string; newPassword: string }) =>
      must(api.PUT('/users/{userId}/password', { params: { path: { userId } }, body: { newPassword } })),
    onSettled: () => settled(),
  });
}

export function useDeleteUser() {
  const settled = useUserSettled();
  return useMutation({
    mutationFn: (userId: string) => must(api.DELETE('/users/{userId}', { params: { path: { userId } } })),
    onSuccess: () => settled(),
  });
}

export function useApiKeys() {
  return useQuery({ queryKey: adminKeys.apiKeys, queryFn: async ({ signal }) => (await must(api.GET('/api-keys', { signal }))).apiKeys });
}

export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description?: string; role: Role }) => must(api.POST('/api-keys', { body })),
    // The answer holds the key: not kept in the mutation cache once its dialog is gone.
    gcTime: 0,
    onSuccess: () => qc.invalidateQueries({ queryKey: adminKeys.apiKeys }),
  });
}

export function useUpdateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ keyId, ...body }: { keyId: string; role: Role }) => must(api.PATCH('/api-keys/{keyId}', { params: { path: { keyId } }, body })),
    onSettled: () => qc.invalidateQueries({ queryKey: adminKeys.apiKeys }),
  });
}

export function useDeleteApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) => must(api.DELETE('/api-keys/{keyId}', { params: { path: { keyId } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: adminKeys.apiKeys }),
  });
}

export function useWebhooks() {
  return useQuery({ queryKey: adminKeys.webhooks, queryFn: async ({ signal }) => (await must(api.GET('/webhooks', { signal }))).webhooks });
}

/** The DAG's webhook, or null when it has none. */
export function useWebhook(fileName: string) {
  return useQuery({
    queryKey: adminKeys.webhook(fileName),
    queryFn: ({ signal }) => orNull(api.GET('/dags/{fileName}/webhook', { params: { path: { fileName } }, signal })),
  });
}

export type WebhookAction = { op: 'create' } | { op: 'regenerate' } | { op: 'delete' } | { op: 'toggle'; enabled: boolean };

/** Every change of a DAG's webhook; create and regenerate answer `{webhook, token}`, the token shown once. */
export function useWebhookAction(fileName: string) {
  const qc = useQueryClient();
  return useMutation({
    gcTime: 0,
    mutationFn: async (a: WebhookAction): Promise<{ token?: string }> => {
      const path = { fileName };
      switch (a.op) {
        case 'create': return must(api.POST('/dags/{fileName}/webhook', { params: { path } }));
        case 'regenerate': return must(api.POST('/dags/{fileName}/webhook/regenerate', { params: { path } }));
        case 'toggle': await must(api.POST('/dags/{fileName}/webhook/toggle', { params: { path }, body: { enabled: a.enabled } })); return {};
        case 'delete': await must(api.DELETE('/dags/{fileName}/webhook', { params: { path } })); return {};
      }
    },
    onSettled: () => qc.invalidateQueries({ queryKey: adminKeys.webhooks }),
  });
}
