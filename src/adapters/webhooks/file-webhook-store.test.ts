import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlreadyExistsError, BadRequestError, NotFoundError } from '../../core/errors.js';
import type { StoredWebhook } from '../../core/ports/webhook-store.js';
import { FileWebhookStore } from './file-webhook-store.js';

const hook = (dagName: string, over: Partial<StoredWebhook> = {}): StoredWebhook => ({
  id: `id-${dagName}`, dagName, tokenHash: 'ab'.repeat(32), tokenPrefix: 'svc_wh_abcde', enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', createdBy: '', lastUsedAt: '', ...over,
});

describe('FileWebhookStore', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'svc-wh-')); });

  test('create, get, list, modify, delete; survives a new instance', async () => {
    const s = new FileWebhookStore(dir);
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
    const again = new FileWebhookStore(dir);
    expect(await again.list()).toEqual([hook('a', { enabled: false })]);
    expect(again.cacheSize()).toBe(1);
  });

  test('returned records are copies', async () => {
    const s = new FileWebhookStore(dir);
    const h = await s.create(hook('a'));
    h.enabled = false;
    (await s.get('a'))!.tokenHash = 'x';
    expect(await s.get('a')).toEqual(hook('a'));
  });

  test('corrupt, foreign or mismatched files are skipped', async () => {
    const wh = join(dir, 'webhooks');
    await new FileWebhookStore(dir).create(hook('ok'));
    writeFileSync(join(wh, 'torn.json'), '{"id": ');
    writeFileSync(join(wh, 'other.json'), JSON.stringify(hook('ok')));
    writeFileSync(join(wh, 'partial.json'), JSON.stringify({ dagName: 'partial' }));
    writeFileSync(join(wh, 'README'), 'x');
    const s = new FileWebhookStore(dir);
    expect((await s.list()).map((h) => h.dagName)).toEqual(['ok']);
    expect(readdirSync(wh)).toHaveLength(5);
  });

  test.each(['../x', 'a/b', 'a.b', '', 'a\0b'])('rejects the name %p', async (name) => {
    const s = new FileWebhookStore(dir);
    await expect(s.get(name)).rejects.toBeInstanceOf(BadRequestError);
    await expect(s.create(hook(name))).rejects.toBeInstanceOf(BadRequestError);
  });

  test('concurrent modifications are serialised', async () => {
    const s = new FileWebhookStore(dir);
    await s.create(hook('a', { createdBy: '' }));
    await Promise.all(Array.from({ length: 20 }, (_, i) => s.modify('a', (h) => ({ ...h, createdBy: `${h.createdBy}${i % 10}` }))));
    expect((await new FileWebhookStore(dir).get('a'))!.createdBy).toHaveLength(20);
  });
});
