import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config.js';

const base = { HOME: '/tmp/h' };

test.each([
  [{}, ['localhost', '.localhost']],
  [{ SVC_HOST: '0.0.0.0' }, ['localhost', '.localhost']],
  [{ SVC_HOST: 'svc.lan' }, ['localhost', '.localhost', 'svc.lan']],
  [{ SVC_ALLOWED_HOSTS: 'Svc.Example.com, *.corp.example ,.lab' }, ['localhost', '.localhost', 'svc.example.com', '.corp.example', '.lab']],
  [{ SVC_ALLOWED_HOSTS: '*' }, ['localhost', '.localhost', '*']],
])('%j -> %j', (env, want) => {
  expect(loadConfig({ ...base, ...env }).allowedHosts).toEqual(want);
});

test.each(['svc.example.com:8080', 'http://svc.example.com', 'a/b', 'under_score'])('%s is refused, naming the value', (v) => {
  expect(() => loadConfig({ ...base, SVC_ALLOWED_HOSTS: v })).toThrow(new RegExp(`SVC_ALLOWED_HOSTS: "${v.replace(/[.*/]/g, '\\$&')}"`));
});

test('the config file\'s server.allowedHosts list, and the environment over it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-hosts-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'server:\n  allowedHosts: [svc.example.com, .example.org]\n');
  expect(loadConfig({ ...base, SVC_CONFIG: file }).allowedHosts).toEqual(['localhost', '.localhost', 'svc.example.com', '.example.org']);
  expect(loadConfig({ ...base, SVC_CONFIG: file, SVC_ALLOWED_HOSTS: 'only.example' }).allowedHosts).toEqual(['localhost', '.localhost', 'only.example']);
  writeFileSync(file, 'server:\n  allowedHosts: 5\n');
  expect(() => loadConfig({ ...base, SVC_CONFIG: file })).toThrow(/server.allowedHosts must be a list/);
});
