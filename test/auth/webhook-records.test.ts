/** The webhook store's rules, over an in-memory collection (the file layout is tested in adapters/records). */
import { MemoryRecords } from '../../src/adapters/records/memory-records.js';
import { AlreadyExistsError, BadRequestError, NotFoundError } from '../../src/core/errors.js';
import type { StoredWebhook } from '../../src/core/ports/webhook-store.js';
import { RecordWebhookStore } from '../../src/auth/stores/webhook-records.js';

const hook = (dagName: string, over: Partial<StoredWebhook> = {}): StoredWebhook => ({
  id: `id-${dagName}`, dagName, tokenHash: 'ab'.repeat(32), tokenPrefix: 'svc_wh_abcde', enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', createdBy: '', lastUsedAt: '', ...over,
});

describe('RecordWebhookStore', () => {
  test('create, get, list, modify, delete: one webhook per DAG; id and dagName never change', async () => {
    const s = new RecordWebhookStore(new MemoryRecords());
    await s.create(hook('b'));
    await s.create(hook('a'));
    await expect(s.create(hook('a'))).rejects.toBeInstanceOf(AlreadyExistsError);
    expect((await s.list()).map((h) => h.dagName)).toEqual(['a', 'b']);
    const changed = await s.modify('a', (h) => ({ ...h, enabled: false, id: 'ignored', dagName: 'ignored' }));
    expect(changed).toEqual(hook('a', { enabled: false }));
    expect(await s.modify('a', () => undefined)).toEqual(hook('a', { enabled: false }));
    await s.delete('b');
    await expect(s.delete('b')).rejects.toBeInstanceOf(NotFoundError);
    await expect(s.modify('b', (h) => h)).rejects.toBeInstanceOf(NotFoundError);
    expect(await s.list()).toEqual([hook('a', { enabled: false })]);
    expect(s.cacheSize()).toBe(1);
  });

  test.each(['../x', 'a/b', 'a.b', '', 'a\0b'])('refuses the name %p before touching the records', async (name) => {
    const s = new RecordWebhookStore(new MemoryRecords());
    await expect(s.get(name)).rejects.toBeInstanceOf(BadRequestError);
    await expect(s.create(hook(name))).rejects.toBeInstanceOf(BadRequestError);
    await expect(s.delete(name)).rejects.toBeInstanceOf(BadRequestError);
  });

  test('concurrent modifications are serialised', async () => {
    const s = new RecordWebhookStore(new MemoryRecords());
    await s.create(hook('a', { createdBy: '' }));
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.modify('a', (h) => ({ ...h, createdBy: `${h.createdBy}${i % 10}` }))));
    expect((await s.get('a'))!.createdBy).toHaveLength(20);
  });
});
