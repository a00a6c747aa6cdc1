/**
 * Load-time check of a `redis` step's config (SPEC 2.6): one thing to do (a command, a pipeline or a Lua
 * script), the addresses its mode needs, a known output format, and no unknown fields (a misspelt or
 * snake_case field, `sentinel_master`, would otherwise be ignored silently). It sees the effective
 * config before expansion: a value written as `${VAR}` counts as given and is not type-checked.
 */
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';
import type { StepDefinition } from '../types.js';

/** Fields of one command, at the top level and in each pipeline item. */
export const REDIS_COMMAND_FIELDS = [
  'command', 'key', 'keys', 'field', 'fields', 'value', 'values', 'args',
  'ttl', 'nx', 'xx', 'start', 'stop', 'score', 'withScores', 'match', 'count', 'channel', 'message',
] as const;

export const REDIS_CONNECTION_FIELDS = [
  'url', 'host', 'port', 'password', 'username', 'db', 'tls', 'tlsCa', 'tlsSkipVerify',
  'mode', 'sentinelMaster', 'sentinelAddrs', 'clusterAddrs',
] as const;

export const REDIS_FIELDS: ReadonlySet<string> = new Set<string>([
  ...REDIS_CONNECTION_FIELDS, ...REDIS_COMMAND_FIELDS,
  'pipeline', 'multi', 'watch',
  'script', 'scriptFile', 'scriptSha', 'scriptKeys', 'scriptArgs',
  'lock', 'lockTimeout', 'lockRetry', 'lockWait',
  'outputFormat', 'format', 'nullValue', 'timeout',
]);

export const REDIS_OUTPUT_FORMATS = ['json', 'jsonl', 'raw', 'csv'] as const;
export const REDIS_MODES = ['standalone', 'sentinel', 'cluster'] as const;

type Config = Record<string, unknown>;

const templated = (v: unknown): boolean => typeof v === 'string' && v.includes('${');
const given = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
const nonEmptyList = (v: unknown): boolean => (Array.isArray(v) && v.length > 0) || templated(v);

/** `sentinel_master` -> `sentinelMaster`: the reference's spelling of a field, in ours. */
function camel(field: string): string {
  return field.replace(/[_-]([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function unknownFields(o: Config, known: ReadonlySet<string>, path: string): ConfigProblem[] {
  return Object.keys(o).filter((k) => !known.has(k)).map((k) => {
    const hint = known.has(camel(k)) ? ` (did you mean ${camel(k)}?)` : '';
    return { field: `${path}.${k}`, message: `is not a redis step field${hint}` };
  });
}

/** The actions the step asks for: a command, a pipeline, a script (step-level command and script count). */
function actions(config: Config, step: StepDefinition): string[] {
  return [
    ...(given(config.command) || step.commands.length > 0 ? ['command'] : []),
    ...(config.pipeline !== undefined ? ['pipeline'] : []),
    ...([config.script, config.scriptFile, config.scriptSha, step.script].some(given) ? ['script'] : []),
  ];
}

function checkAction(config: Config, step: StepDefinition): ConfigProblem[] {
  const found = actions(config, step);
  if (found.length === 0) return [{ field: 'config.command', message: 'is required for redis steps (or config.pipeline, or a Lua config.script)' }];
  const out: ConfigProblem[] = [];
  if (found.length > 1) out.push({ field: 'config', message: `give one of command, pipeline and script (found ${found.join(', ')})` });
  if (step.commands.length > 1) out.push({ field: 'command', message: 'a redis step runs one command (use config.pipeline for several)' });
  if (!found.includes('pipeline') && (config.multi === true || config.watch !== undefined)) {
    out.push({ field: config.multi === true ? 'config.multi' : 'config.watch', message: 'applies to a pipeline (config.pipeline)' });
  }
  return out;
}

const COMMAND_FIELDS: ReadonlySet<string> = new Set(REDIS_COMMAND_FIELDS);

function checkPipeline(pipeline: unknown): ConfigProblem[] {
  if (pipeline === undefined || templated(pipeline)) return [];
  if (!Array.isArray(pipeline) || pipeline.length === 0) return [{ field: 'config.pipeline', message: 'must be a list of commands ({command, key, value ...})' }];
  return pipeline.flatMap((item, i): ConfigProblem[] => {
    const path = `config.pipeline[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return [{ field: path, message: 'must be an object with a command' }];
    const o = item as Config;
    return [
      ...(typeof o.command === 'string' && o.command.trim() !== '' ? [] : [{ field: `${path}.command`, message: 'is required' }]),
      ...unknownFields(o, COMMAND_FIELDS, path),
    ];
  });
}

function checkMode(config: Config): ConfigProblem[] {
  const mode = config.mode ?? 'standalone';
  if (templated(mode)) return [];
  if (!(REDIS_MODES as readonly unknown[]).includes(mode)) return [{ field: 'config.mode', message: `must be one of ${REDIS_MODES.join(', ')}` }];
  const out: ConfigProblem[] = [];
  if (mode === 'sentinel' && !given(config.sentinelMaster)) out.push({ field: 'config.sentinelMaster', message: 'is required in sentinel mode' });
  if (mode === 'sentinel' && !nonEmptyList(config.sentinelAddrs)) out.push({ field: 'config.sentinelAddrs', message: 'is required in sentinel mode' });
  if (mode === 'cluster' && !nonEmptyList(config.clusterAddrs) && !given(config.host) && !given(config.url)) {
    out.push({ field: 'config.clusterAddrs', message: 'is required in cluster mode' });
  }
  return out;
}

function checkValues(config: Config): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const format = config.outputFormat ?? config.format;
  if (format !== undefined && !templated(format) && !(REDIS_OUTPUT_FORMATS as readonly unknown[]).includes(format)) {
    out.push({ field: config.outputFormat !== undefined ? 'config.outputFormat' : 'config.format', message: `must be one of ${REDIS_OUTPUT_FORMATS.join(', ')}` });
  }
  const db = config.db;
  if (db !== undefined && !templated(db) && !(typeof db === 'number' && Number.isInteger(db) && db >= 0 && db <= 15)) {
    out.push({ field: 'config.db', message: 'must be a database number from 0 to 15' });
  }
  if (config.lock !== undefined && !(typeof config.lock === 'string' && config.lock.trim() !== '')) {
    out.push({ field: 'config.lock', message: 'must be a lock name' });
  }
  return out;
}

export const checkRedis: ConfigCheck = (config, step) => [
  ...checkAction(config, step),
  ...checkPipeline(config.pipeline),
  ...checkMode(config),
  ...checkValues(config),
  ...unknownFields(config, REDIS_FIELDS, 'config'),
];
