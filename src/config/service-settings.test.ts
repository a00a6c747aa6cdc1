/**
 * Every SVC_ variable svc reads as its own configuration is kept from steps (core/vars/env.ts
 * SERVICE_SETTINGS): a setting added without it would reach every step process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filterSystemEnv, isServiceSetting } from '../core/vars/env.js';

const read = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => readFileSync(join(dir, f), 'utf8'));
const names = new Set([...read('src/config'), ...read('src/main'), ...read('src/cli')].flatMap((t) => t.match(/SVC_[A-Z0-9_]+/g) ?? []));

describe('service settings', () => {
  // A name ending in _ is a prefix (SVC_AUTH_): any variable under it.
  it.each([...names].sort())('%s is not passed to steps', (name) => {
    const v = name.endsWith('_') ? `${name}X` : name;
    expect(isServiceSetting(v)).toBe(true);
    expect(filterSystemEnv({ [v]: 'x' })).toEqual({});
  });
  it('an SVC_ variable that is no setting is passed (SPEC 2.7)', () => {
    expect(filterSystemEnv({ SVC_MY_TEAM: 'x' })).toEqual({ SVC_MY_TEAM: 'x' });
  });
});
