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

test('SVC_LOG_LEVEL: debug, info (the default), warn or error, in either case; anything else names the variable', () => {
  expect(loadConfig({}).logLevel).toBe('info');
  for (const l of ['debug', 'info', 'warn', 'error']) expect(loadConfig({ SVC_LOG_LEVEL: l }).logLevel).toBe(l);
  expect(loadConfig({ SVC_LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
  expect(loadConfig({ SVC_CONFIG: fileConfig('logLevel: error\n') }).logLevel).toBe('error');
  expect(() => loadConfig({ SVC_LOG_LEVEL: 'verbose' })).toThrow(/SVC_LOG_LEVEL: "verbose" must be one of debug, info, warn, error/);
  expect(() => loadConfig({ SVC_LOG_LEVEL: 'trace' })).toThrow(ConfigError);
});

test('terminal.enabled (SVC_TERMINAL_ENABLED): off by default, on from the environment or the file, a bad value named', () => {
  expect(loadConfig({}).terminalEnabled).toBe(false);
  expect(loadConfig({ SVC_TERMINAL_ENABLED: 'true' }).terminalEnabled).toBe(true);
  const on = fileConfig('terminal:\n  enabled: true\n');
  expect(loadConfig({ SVC_CONFIG: on }).terminalEnabled).toBe(true);
  expect(loadConfig({ SVC_CONFIG: on, SVC_TERMINAL_ENABLED: '0' }).terminalEnabled).toBe(false);
  expect(() => loadConfig({ SVC_TERMINAL_ENABLED: 'yes' })).toThrow(/SVC_TERMINAL_ENABLED: "yes" must be true or false/);
  expect(() => loadConfig({ SVC_CONFIG: fileConfig('terminal:\n  enabled: sometimes\n') })).toThrow(ConfigError);
});
