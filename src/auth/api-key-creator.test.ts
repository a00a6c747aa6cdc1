import type { StoredApiKey, StoredUser } from '../core/ports/auth-stores.js';
import { keyStanding } from './api-key-creator.js';

const user = (id: string, role: StoredUser['role'], isDisabled = false) => ({ id, role, isDisabled }) as StoredUser;
const key = (id: string, role: StoredApiKey['role'], createdBy: string) => ({ id, role, createdBy }) as StoredApiKey;

const users = new Map([['ann', user('ann', 'admin')], ['vic', user('vic', 'viewer')], ['dis', user('dis', 'admin', true)]]);
const userOf = async (id: string) => users.get(id);

test.each([
  ['an enabled admin\'s key keeps its role', key('k', 'manager', 'ann'), [], { role: 'manager' }],
  ['a demoted creator caps the role', key('k', 'admin', 'vic'), [], { role: 'viewer' }],
  ['a disabled creator: refused', key('k', 'viewer', 'dis'), [], { problem: expect.stringMatching(/disabled/) }],
  ['a deleted creator: refused', key('k', 'viewer', 'gone'), [], { problem: expect.stringMatching(/no longer exists/) }],
  ['the static token\'s key keeps its role', key('k', 'admin', 'static'), [], { role: 'admin' }],
  ['a key made with a key stands for that key\'s creator', key('k', 'admin', 'p'), [key('p', 'operator', 'ann')], { role: 'operator' }],
  ['a chain that ends nowhere: refused', key('k', 'admin', 'p'), [key('p', 'admin', 'gone')], { problem: expect.any(String) }],
  ['a loop: refused', key('k', 'admin', 'p'), [key('p', 'admin', 'q'), key('q', 'admin', 'p')], { problem: expect.stringMatching(/too long/) }],
])('%s', async (_what, k, keys, want) => {
  expect(await keyStanding(k, [k, ...keys], userOf)).toEqual(want);
});
