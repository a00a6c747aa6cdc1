import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.js';

const fileConfig = (yaml: string): string => {
  const p = join(mkdtempSync(join(tmpdir(), 'svc-config-')), 'config.yaml');
  writeFileSync(p, yaml);
  return p;
};

test('switches: on by default; false/0 in the environment or YAML false in the file turn them off', () => {
  expect(loadConfig({})).toMatchObject({ queuesEnabled: true, forkServer: true });
  expect(loadConfig({ SVC_QUEUE_ENABLED: '0', SVC_FORK_SERVER: 'false' })).toMatchObject({ queuesEnabled: false, forkServer: false });
  const file = fileConfig('queuesEnabled: false\nforkServer: false\n');
  expect(loadConfig({ SVC_CONFIG: file })).toMatchObject({ queuesEnabled: false, forkServer: false });
  expect(loadConfig({ SVC_CONFIG: file, SVC_FORK_SERVER: 'true' })).toMatchObject({ forkServer: true });
});

test('a switch that is neither true nor false is a configuration error naming it', () => {
  expect(() => loadConfig({ SVC_FORK_SERVER: 'perhaps' })).toThrow(ConfigError);
  expect(() => loadConfig({ SVC_FORK_SERVER: 'perhaps' })).toThrow(/SVC_FORK_SERVER: "perhaps" must be true or false/);
});
