/**
 * An API key acts for the user who created it: it stops working when that user is deleted or disabled,
 * and never grants more than that user's role now (an admin demoted to viewer keeps no admin key). A key
 * made with another key stands for that key's creator, so the chain is followed to a user. A key made
 * with the static token or basic credentials (no user) stands for the configuration and keeps its role.
 */
import { lowerRole, type Role } from '../core/auth/roles.js';
import type { StoredApiKey, StoredUser } from '../core/ports/auth-stores.js';

/** Creators that are no user: the static token, basic credentials (principal ids of those kinds). */
const CONFIG_CREATORS = new Set(['', 'static', 'basic']);
const MAX_CHAIN = 10;

export type KeyStanding = { role: Role } | { problem: string };

export async function keyStanding(
  key: StoredApiKey, keys: readonly StoredApiKey[], userOf: (id: string) => Promise<StoredUser | undefined>,
): Promise<KeyStanding> {
  let role = key.role;
  let creator = key.createdBy;
  for (let i = 0; i < MAX_CHAIN; i++) {
    if (CONFIG_CREATORS.has(creator)) return { role };
    const user = await userOf(creator);
    if (user) return user.isDisabled ? { problem: 'the user who created this API key is disabled' } : { role: lowerRole(role, user.role) };
    const parent = keys.find((k) => k.id === creator);
    if (!parent) return { problem: 'the user who created this API key no longer exists' };
    role = lowerRole(role, parent.role);
    creator = parent.createdBy;
  }
  return { problem: 'this API key was created by a chain of keys too long to follow' };
}
