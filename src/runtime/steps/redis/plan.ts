/**
 * What a redis step does, read from its expanded config (the DAG-level `redis` block already applied
 * field by field): where to connect, the one action (a command, a pipeline or a Lua script), the lock
 * around it, the output format and the time allowed. Pure: bad config is a StepError naming the field.
 */
import { REDIS_MODES, REDIS_OUTPUT_FORMATS } from '../../../core/spec/step-configs/redis.js';
import { StepError } from '../runner.js';
import { buildCommand, type RedisCommand } from './argv.js';
import { isGiven, optBool, optInt, optList, optString, type Config } from './fields.js';

export interface Endpoint {
  host: string;
  port: number;
}

export interface Connection {
  mode: (typeof REDIS_MODES)[number];
  /** The standalone server (and the first cluster node when clusterAddrs is empty). */
  endpoint: Endpoint;
  username?: string;
  password?: string;
  db: number;
  tls?: { caFile?: string; skipVerify: boolean };
  sentinelMaster?: string;
  sentinels: Endpoint[];
  clusterNodes: Endpoint[];
}

export type Action =
  | { kind: 'command'; command: RedisCommand }
  | { kind: 'pipeline'; commands: RedisCommand[]; multi: boolean; watch: string[] }
  | { kind: 'script'; source?: string; file?: string; sha?: string; keys: string[]; args: string[] };

export interface LockSpec {
  name: string;
  key: string;
  ttlMs: number;
  attempts: number;
  waitMs: number;
}

export type OutputFormat = (typeof REDIS_OUTPUT_FORMATS)[number];

export interface Plan {
  connection: Connection;
  action: Action;
  lock?: LockSpec;
  format: OutputFormat;
  /** How a nil reply is written in raw and CSV output. */
  nullValue: string;
  /** 0: no limit. */
  timeoutMs: number;
}

/** The key a lock named `name` is held under. */
export const lockKey = (name: string): string => `svc:lock:${name}`;

const DEFAULT_PORT = 6379;

/** `host:port`, `[v6]:port` or a bare host (port 6379). */
export function parseAddress(text: string, path: string): Endpoint {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text);
  const port = m?.[2] !== undefined ? Number(m[2]) : DEFAULT_PORT;
  if (!m || port < 1 || port > 65535) throw new StepError(`redis step: ${path}: "${text}" is not host:port`);
  return { host: m[1]!, port };
}

interface UrlParts {
  endpoint: Endpoint;
  username?: string;
  password?: string;
  db?: number;
  tls: boolean;
}

/** A redis:// or rediss:// URL; never echoed in errors (it may carry a password). */
function parseUrl(url: string): UrlParts {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new StepError('redis step: config.url is not a URL (redis://[user:password@]host[:port][/db])');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new StepError(`redis step: config.url must be redis:// or rediss://, not ${u.protocol}//`);
  const dbText = u.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^(\d|1[0-5])$/.test(dbText)) throw new StepError('redis step: config.url: the path must be a database number from 0 to 15');
  return {
    endpoint: { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : DEFAULT_PORT },
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(dbText !== '' ? { db: Number(dbText) } : {}),
    tls: u.protocol === 'rediss:',
  };
}

function parseMode(config: Config): Connection['mode'] {
  const mode = optString(config, 'mode') ?? 'standalone';
  if (!(REDIS_MODES as readonly string[]).includes(mode)) throw new StepError(`redis step: config.mode must be one of ${REDIS_MODES.join(', ')}`);
  return mode as Connection['mode'];
}

function parseTls(config: Config, fromUrl: UrlParts | undefined): Connection['tls'] {
  if (fromUrl?.tls !== true && optBool(config, 'tls') !== true) return undefined;
  const caFile = optString(config, 'tlsCa');
  return { skipVerify: optBool(config, 'tlsSkipVerify') === true, ...(caFile ? { caFile } : {}) };
}

function parseTopology(config: Config, mode: Connection['mode'], endpoint: Endpoint): Pick<Connection, 'sentinelMaster' | 'sentinels' | 'clusterNodes'> {
  const sentinelMaster = optString(config, 'sentinelMaster');
  const sentinels = (optList(config, 'sentinelAddrs') ?? []).map((a, i) => parseAddress(a, `config.sentinelAddrs[${i}]`));
  if (mode === 'sentinel' && (!sentinelMaster || sentinels.length === 0)) throw new StepError('redis step: sentinel mode needs config.sentinelMaster and config.sentinelAddrs');
  const listed = (optList(config, 'clusterAddrs') ?? []).map((a, i) => parseAddress(a, `config.clusterAddrs[${i}]`));
  return { sentinels, clusterNodes: listed.length > 0 ? listed : [endpoint], ...(sentinelMaster ? { sentinelMaster } : {}) };
}

/** The connection: a URL's parts win over host, port and (when it has them) credentials and db. */
export function parseConnection(config: Config): Connection {
  const url = optString(config, 'url');
  const fromUrl = url !== undefined ? parseUrl(url) : undefined;
  const mode = parseMode(config);
  const endpoint = fromUrl?.endpoint ?? { host: optString(config, 'host') ?? 'localhost', port: optInt(config, 'port', { min: 1, max: 65535 }) ?? DEFAULT_PORT };
  const db = fromUrl?.db ?? optInt(config, 'db', { min: 0, max: 15 }) ?? 0;
  if (mode === 'cluster' && db !== 0) throw new StepError('redis step: config.db: a cluster has only database 0');
  const username = fromUrl?.username ?? optString(config, 'username');
  const password = fromUrl?.password ?? optString(config, 'password');
  const tls = parseTls(config, fromUrl);
  return {
    mode, endpoint, db, ...parseTopology(config, mode, endpoint),
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(tls ? { tls } : {}),
  };
}

function parsePipeline(config: Config): Action {
  const items = config.pipeline;
  if (!Array.isArray(items) || items.length === 0) throw new StepError('redis step: config.pipeline must be a list of commands ({command, key, value ...})');
  const commands = items.map((item, i) => {
    const path = `config.pipeline[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new StepError(`redis step: ${path} must be an object with a command`);
    const line = optString(item as Config, 'command', `${path}.command`);
    if (line === undefined) throw new StepError(`redis step: ${path}.command is required`);
    const c = buildCommand(line, item as Config, path);
    if (c.scan) throw new StepError(`redis step: ${path}: SCAN iterates a cursor and cannot run in a pipeline (use KEYS, or a SCAN step)`);
    return c;
  });
  const watch = optList(config, 'watch') ?? [];
  return { kind: 'pipeline', commands, multi: optBool(config, 'multi') === true || watch.length > 0, watch };
}

function parseScript(config: Config, stepScript: string | undefined): Action {
  const source = optString(config, 'script') ?? (isGiven(stepScript) ? stepScript : undefined);
  const file = optString(config, 'scriptFile');
  const sha = optString(config, 'scriptSha');
  if (source !== undefined && file !== undefined) throw new StepError('redis step: give config.script or config.scriptFile, not both');
  return {
    kind: 'script', keys: optList(config, 'scriptKeys') ?? optList(config, 'keys') ?? [],
    args: optList(config, 'scriptArgs') ?? optList(config, 'args') ?? [],
    ...(source !== undefined ? { source } : {}), ...(file !== undefined ? { file } : {}), ...(sha !== undefined ? { sha } : {}),
  };
}

/** The one action of the step; the step-level `command:` and `script:` stand in for config's. */
export function parseAction(config: Config, stepCommands: string[], stepScript: string | undefined): Action {
  const line = optString(config, 'command') ?? stepCommands[0];
  const hasScript = ['script', 'scriptFile', 'scriptSha'].some((f) => isGiven(config[f])) || isGiven(stepScript);
  const kinds = [line !== undefined && 'command', config.pipeline !== undefined && 'pipeline', hasScript && 'script'].filter(Boolean);
  if (kinds.length === 0) throw new StepError('redis step: config.command is required (or config.pipeline, or a Lua config.script)');
  if (kinds.length > 1) throw new StepError(`redis step: give one of command, pipeline and script (found ${kinds.join(', ')})`);
  if (stepCommands.length > 1) throw new StepError('redis step: a redis step runs one command (use config.pipeline for several)');
  if (kinds[0] === 'pipeline') return parsePipeline(config);
  if (kinds[0] === 'script') return parseScript(config, stepScript);
  return { kind: 'command', command: buildCommand(line!, config, 'config') };
}

function parseLock(config: Config): LockSpec | undefined {
  const name = optString(config, 'lock');
  if (name === undefined) return undefined;
  return {
    name, key: lockKey(name),
    ttlMs: (optInt(config, 'lockTimeout', { min: 1 }) ?? 30) * 1000,
    attempts: optInt(config, 'lockRetry', { min: 1 }) ?? 10,
    waitMs: optInt(config, 'lockWait', { min: 0 }) ?? 100,
  };
}

function parseFormat(config: Config): OutputFormat {
  const long = optString(config, 'outputFormat');
  const short = optString(config, 'format');
  if (long !== undefined && short !== undefined && long !== short) throw new StepError('redis step: config.outputFormat and config.format disagree (format is its short name)');
  const format = (long ?? short ?? 'json').toLowerCase();
  if (!(REDIS_OUTPUT_FORMATS as readonly string[]).includes(format)) throw new StepError(`redis step: config.outputFormat must be one of ${REDIS_OUTPUT_FORMATS.join(', ')}`);
  return format as OutputFormat;
}

export function parsePlan(config: Config, stepCommands: string[], stepScript?: string): Plan {
  const lock = parseLock(config);
  const timeout = optInt(config, 'timeout', { min: 0 }) ?? 30;
  return {
    connection: parseConnection(config),
    action: parseAction(config, stepCommands, stepScript),
    ...(lock ? { lock } : {}),
    format: parseFormat(config),
    nullValue: typeof config.nullValue === 'string' ? config.nullValue : 'null',
    timeoutMs: timeout * 1000,
  };
}
