/**
 * The only place that reads the environment and the config file: a frozen configuration with documented
 * defaults. Precedence: environment variable > config file (SVC_CONFIG, YAML) > default.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseDurationMs } from '../core/spec/blocks.js';
import { DEFAULT_MAX_CALL_DEPTH } from '../core/spec/calls.js';
import { loadAuditEnabled, loadAuditSink, loadAuthConfig, type AuthConfig } from './auth-config.js';
import { loadAllowedHosts } from './browser-config.js';
import { at, bool, ConfigError, text } from './values.js';
import { loadPodPolicy } from './pod-policy.js';
import type { PodPolicy } from '../core/spec/pod-policy.js';

/** SVC_LOG_LEVEL's values, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface QueueConfig { name: string; maxActiveRuns: number }
export interface RemoteNodeConfig { name: string; apiBaseURL: string; authToken?: string }

export interface Config {
  /** SVC_DATA_DIR: state (runs, logs, outputs). Default ~/.local/share/svc (or $XDG_DATA_HOME/svc). */
  dataDir: string;
  /** SVC_DAGS_DIR: DAG files. Default <dataDir>/dags. */
  dagsDir: string;
  /** SVC_DEFAULT_SHELL, else $SHELL, else /bin/sh. */
  defaultShell: string[];
  /** SVC_LOG_LEVEL: debug, info (default), warn or error. */
  logLevel: LogLevel;
  /** SVC_HOST (127.0.0.1) and SVC_PORT (8080): where `svc server` listens. */
  host: string;
  port: number;
  /** SVC_SERVER_METRICS: private (default, credentials required once auth exists) or public. */
  metrics: 'private' | 'public';
  /** SVC_MONITORING_INTERVAL (5s) and SVC_MONITORING_RETENTION (24h): resource history sampling. */
  monitoringIntervalMs: number;
  monitoringRetentionMs: number;
  /** SVC_QUEUE_ENABLED (true): whether the queue processor runs. */
  queuesEnabled: boolean;
  /**
   * SVC_FORK_SERVER (true): start step processes from the small native helper the build makes (ADR
   * 0008) rather than forking the engine itself. Without it (no C compiler at build) the engine spawns.
   */
  forkServer: boolean;
  /** Named global queues (config file `queues: [{name, maxActiveRuns}]`). */
  queues: QueueConfig[];
  /** Other instances reachable by `remoteNode` (config file `remoteNodes: [{name, apiBaseURL, authToken}]`). */
  remoteNodes: RemoteNodeConfig[];
  /**
   * Static credentials (SPEC 5.1): SVC_AUTH_TOKEN (file `auth.token.value`) and SVC_AUTH_BASIC_USERNAME
   * with SVC_AUTH_BASIC_PASSWORD (file `auth.basic.username/password`). Until authentication (issue 5)
   * they only open private metrics.
   */
  authToken?: string;
  authBasic?: { username: string; password: string };
  /** Authentication mode and its settings (SPEC 5.2, 5.4): see auth-config.ts. */
  auth: AuthConfig;
  /** SVC_AUDIT_ENABLED (true): security events appended to <dataDir>/audit/. */
  auditEnabled: boolean;
  /** SVC_AUDIT_SINK: where audit entries go, `file` (<dataDir>/audit, default) or `stdout` (JSON lines). */
  auditSink: 'file' | 'stdout';
  /** SVC_TZ: time zone for cron schedules without CRON_TZ (default: the system's). */
  tz?: string;
  /** The process environment, passed to the engine (which filters it for steps). */
  systemEnv: Record<string, string>;
  version: string;
  /**
   * SVC_BACKEND (`--backend`): embedded (default: files under dataDir, steps as local processes) or
   * kubernetes (Dag and DagRun resources, Secrets; the operator runs the steps).
   */
  backend: Backend;
  /** SVC_NAMESPACE (`--namespace`): the kubernetes backend's namespace (default: the kubeconfig context's, else `default`). */
  namespace?: string;
  /** SVC_KUBECONFIG: the kubeconfig file (default: KUBECONFIG, ~/.kube/config, else in-cluster). */
  kubeconfig?: string;
  /**
   * SVC_WEBHOOK_CERT_DIR (tls.crt, tls.key) and SVC_WEBHOOK_PORT (9443): the Dag admission webhook's TLS
   * listener, on SVC_HOST; off without a certificate directory.
   */
  webhookCertDir?: string;
  webhookPort: number;
  /**
   * SVC_MAX_CALL_DEPTH (10): how deep sub-DAG calls may nest (the root run is depth 0). A call beyond it
   * fails its step with the chain of DAGs named: recursion through names from variables ends there.
   */
  maxCallDepth: number;
  /** SVC_POD_POLICY (file `podPolicy`): what DAGs may ask of step Pods beyond the default (pod-policy.ts). */
  podPolicy: PodPolicy;
  /**
   * SVC_TERMINAL_ENABLED (file `terminal.enabled`, false): the web terminal, an admin's shell on the
   * server host (docs/api.md "Web terminal", ADR 0022). Off unless the operator turns it on.
   */
  terminalEnabled: boolean;
  /**
   * SVC_ALLOWED_HOSTS (file `server.allowedHosts`): the Host names the server answers, beside IP
   * literals (config/browser-config.ts). Default: localhost, *.localhost and SVC_HOST when a name.
   */
  allowedHosts: readonly string[];
}

export const BACKENDS = ['embedded', 'kubernetes'] as const;
export type Backend = (typeof BACKENDS)[number];

/** SVC_BACKEND's value, checked. */
export function backendOf(v: string | undefined): Backend {
  if (v === undefined) return 'embedded';
  const b = BACKENDS.find((x) => x === v);
  if (!b) throw new ConfigError(`SVC_BACKEND: "${v}" must be one of ${BACKENDS.join(', ')}`);
  return b;
}

export { ConfigError };

type FileConfig = Partial<Record<string, unknown>>;

function readConfigFile(path: string | undefined): FileConfig {
  if (!path) return {};
  try {
    const data = parseYaml(readFileSync(path, 'utf8')) as unknown;
    if (data === null || data === undefined) return {};
    if (typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(`${path}: the config file must be a YAML map`);
    return data as FileConfig;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw new ConfigError(`cannot read config file ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}



function duration(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const ms = parseDurationMs(v);
  if (ms === undefined || ms <= 0) throw new ConfigError(`${name}: "${v}" is not a duration like 5s, 1m, 24h`);
  return ms;
}

function positiveInt(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name}: "${v}" is not a positive whole number`);
  return n;
}

function logLevel(v: string | undefined): LogLevel {
  if (v === undefined) return 'info';
  const level = LOG_LEVELS.find((l) => l === v.toLowerCase());
  if (!level) throw new ConfigError(`SVC_LOG_LEVEL: "${v}" must be one of ${LOG_LEVELS.join(', ')}`);
  return level;
}

function port(v: string | undefined, name = 'SVC_PORT', fallback = 8080): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name}: "${v}" is not a port number`);
  return n;
}

function list<T>(v: unknown, name: string, check: (x: Record<string, unknown>) => T): T[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new ConfigError(`${name} must be a list`);
  return v.map((x, i) => {
    if (typeof x !== 'object' || x === null) throw new ConfigError(`${name}[${i}] must be a map`);
    return check(x as Record<string, unknown>);
  });
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const file = readConfigFile(env.SVC_CONFIG);
  const pick = (envName: string, key: string): string | undefined => text(env[envName]) ?? text(file[key]);
  const xdg = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  const dataDir = resolve(pick('SVC_DATA_DIR', 'dataDir') ?? join(xdg, 'svc'));
  const dagsDir = resolve(pick('SVC_DAGS_DIR', 'dagsDir') ?? join(dataDir, 'dags'));
  const shell = (pick('SVC_DEFAULT_SHELL', 'defaultShell') ?? env.SHELL ?? '/bin/sh').trim().split(/\s+/);
  const metrics = pick('SVC_SERVER_METRICS', 'metrics') ?? 'private';
  if (metrics !== 'private' && metrics !== 'public') throw new ConfigError(`SVC_SERVER_METRICS: "${metrics}" must be private or public`);
  // SVC_AUTH_* hold secrets (token secret, passwords, static token, OIDC client secret): never passed to steps.
  const systemEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('SVC_AUTH_')));
  const queues = list(file.queues, 'queues', (q) => {
    const maxActiveRuns = Number(q.maxActiveRuns ?? 1);
    if (typeof q.name !== 'string' || !Number.isInteger(maxActiveRuns)) throw new ConfigError('queues entries need a name and an integer maxActiveRuns');
    return { name: q.name, maxActiveRuns };
  });
  const remoteNodes = list(file.remoteNodes, 'remoteNodes', (n) => {
    if (typeof n.name !== 'string' || typeof n.apiBaseURL !== 'string') throw new ConfigError('remoteNodes entries need a name and an apiBaseURL');
    if (n.name === 'local') throw new ConfigError('remoteNodes: the name "local" means this instance');
    if (!/^https?:\/\/[^/]/.test(n.apiBaseURL)) throw new ConfigError(`remoteNodes ${n.name}: apiBaseURL must be an http(s) URL ending in /api/v2`);
    return { name: n.name, apiBaseURL: n.apiBaseURL.replace(/\/+$/, ''), ...(typeof n.authToken === 'string' ? { authToken: n.authToken } : {}) };
  });
  const tz = pick('SVC_TZ', 'tz');
  const auth = staticAuth(env, file);
  const namespace = pick('SVC_NAMESPACE', 'namespace');
  const kubeconfig = pick('SVC_KUBECONFIG', 'kubeconfig');
  const webhookCertDir = pick('SVC_WEBHOOK_CERT_DIR', 'webhookCertDir');
  const fail = (m: string) => new ConfigError(m);
  const host = pick('SVC_HOST', 'host') ?? '127.0.0.1';
  return Object.freeze({
    dataDir, dagsDir, defaultShell: shell, logLevel: logLevel(pick('SVC_LOG_LEVEL', 'logLevel')),
    host, allowedHosts: loadAllowedHosts(env, file, host), port: port(pick('SVC_PORT', 'port')), metrics,
    monitoringIntervalMs: duration('SVC_MONITORING_INTERVAL', pick('SVC_MONITORING_INTERVAL', 'monitoringInterval'), 5000),
    monitoringRetentionMs: duration('SVC_MONITORING_RETENTION', pick('SVC_MONITORING_RETENTION', 'monitoringRetention'), 24 * 3600_000),
    queuesEnabled: bool('SVC_QUEUE_ENABLED', env.SVC_QUEUE_ENABLED ?? file.queuesEnabled, true),
    forkServer: bool('SVC_FORK_SERVER', env.SVC_FORK_SERVER ?? file.forkServer, true),
    queues, remoteNodes, ...(tz ? { tz } : {}), ...auth, systemEnv, version: SVC_VERSION,
    auth: loadAuthConfig(env, file, fail), auditEnabled: loadAuditEnabled(env, file, fail), auditSink: loadAuditSink(env, file, fail),
    backend: backendOf(pick('SVC_BACKEND', 'backend')), ...(namespace ? { namespace } : {}), ...(kubeconfig ? { kubeconfig } : {}),
    ...(webhookCertDir ? { webhookCertDir: resolve(webhookCertDir) } : {}), webhookPort: port(pick('SVC_WEBHOOK_PORT', 'webhookPort'), 'SVC_WEBHOOK_PORT', 9443),
    maxCallDepth: positiveInt('SVC_MAX_CALL_DEPTH', pick('SVC_MAX_CALL_DEPTH', 'maxCallDepth'), DEFAULT_MAX_CALL_DEPTH),
    podPolicy: loadPodPolicy(env, file),
    terminalEnabled: bool('SVC_TERMINAL_ENABLED', text(env.SVC_TERMINAL_ENABLED) ?? at(file, 'terminal.enabled'), false),
  });
}

/** Reads `a.b.c` of the config file as a string. */
const nested = (file: FileConfig, ...path: string[]): string | undefined => text(at(file, path.join('.')));

function staticAuth(env: NodeJS.ProcessEnv, file: FileConfig): Pick<Config, 'authToken' | 'authBasic'> {
  const token = text(env.SVC_AUTH_TOKEN) ?? nested(file, 'auth', 'token', 'value');
  const username = text(env.SVC_AUTH_BASIC_USERNAME) ?? nested(file, 'auth', 'basic', 'username');
  const password = text(env.SVC_AUTH_BASIC_PASSWORD) ?? nested(file, 'auth', 'basic', 'password');
  if ((username === undefined) !== (password === undefined)) throw new ConfigError('basic auth needs both SVC_AUTH_BASIC_USERNAME and SVC_AUTH_BASIC_PASSWORD');
  return { ...(token ? { authToken: token } : {}), ...(username && password ? { authBasic: { username, password } } : {}) };
}

export const SVC_VERSION = '0.1.0';
