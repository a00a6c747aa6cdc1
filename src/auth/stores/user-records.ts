/** UserStore over a RecordCollection: usernames unique ignoring case, ids fixed. */
import { AlreadyExistsError, NotFoundError } from '../../core/errors.js';
import type { StoredUser, UserStore } from '../../core/ports/auth-stores.js';
import type { RecordCollection } from '../../core/ports/records.js';

const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

export class RecordUserStore implements UserStore {
  constructor(private readonly records: RecordCollection<StoredUser>) {}

  async list(): Promise<StoredUser[]> {
    return (await this.records.all()).sort((a, b) => a.username.localeCompare(b.username));
  }

  get(id: string): Promise<StoredUser | undefined> {
    return this.find((u) => u.id === id);
  }

  findByUsername(username: string): Promise<StoredUser | undefined> {
    return this.find((u) => sameName(u.username, username));
  }

  findByOidc(identity: string): Promise<StoredUser | undefined> {
    return this.find((u) => u.oidcIdentity === identity);
  }

  create(user: StoredUser): Promise<StoredUser> {
    return this.records.update((all) => {
      if (all.some((u) => sameName(u.username, user.username))) throw new AlreadyExistsError(`user ${user.username} already exists`);
      return { next: [...all, user], result: { ...user } };
    });
  }

  modify(id: string, change: (current: StoredUser, all: StoredUser[]) => StoredUser): Promise<StoredUser> {
    return this.records.update((all) => {
      const i = all.findIndex((u) => u.id === id);
      if (i < 0) throw new NotFoundError(`user ${id} not found`);
      const next = { ...change({ ...(all[i] as StoredUser) }, all), id };
      if (all.some((u) => u.id !== id && sameName(u.username, next.username))) throw new AlreadyExistsError(`user ${next.username} already exists`);
      return { next: all.map((u, j) => (j === i ? next : u)), result: { ...next } };
    });
  }

  delete(id: string, check?: (current: StoredUser, all: StoredUser[]) => void): Promise<void> {
    return this.records.update((all) => {
      const current = all.find((u) => u.id === id);
      if (!current) throw new NotFoundError(`user ${id} not found`);
      check?.(current, all);
      return { next: all.filter((u) => u.id !== id), result: undefined };
    });
  }

  private async find(match: (u: StoredUser) => boolean): Promise<StoredUser | undefined> {
    return (await this.records.all()).find(match);
  }
}
