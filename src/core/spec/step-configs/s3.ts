/**
 * Load-time check of an `s3` step (SPEC 2.6): the command is upload, download, list or delete; a bucket
 * is given (by the step or the DAG-level `s3` block, which the effective config already carries); each
 * command has what it needs (upload: source and a key, download: destination and a key, delete: a key or
 * a prefix; a recursive upload or download, or one with a prefix, needs no key); values have the right
 * shape; no unknown fields. It sees the config before expansion: `${VAR}` counts as given.
 */
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';
import type { StepDefinition } from '../types.js';

export const S3_COMMANDS = ['upload', 'download', 'list', 'delete'] as const;
export const S3_STORAGE_CLASSES = [
  'STANDARD', 'REDUCED_REDUNDANCY', 'STANDARD_IA', 'ONEZONE_IA', 'INTELLIGENT_TIERING', 'GLACIER', 'DEEP_ARCHIVE', 'GLACIER_IR',
  'OUTPOSTS', 'SNOW', 'EXPRESS_ONEZONE',
] as const;
export const S3_CONNECTION_FIELDS = ['region', 'accessKeyId', 'secretAccessKey', 'sessionToken', 'bucket', 'endpoint', 'forcePathStyle'] as const;
export const S3_FIELDS: ReadonlySet<string> = new Set([
  ...S3_CONNECTION_FIELDS, 'key', 'source', 'destination', 'prefix', 'maxKeys', 'recursive', 'contentType', 'storageClass',
]);

type Config = Record<string, unknown>;

const templated = (v: unknown): boolean => typeof v === 'string' && v.includes('${');
const given = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
const isFlag = (v: unknown): boolean => v === undefined || typeof v === 'boolean' || v === 'true' || v === 'false' || templated(v);
const truthy = (v: unknown): boolean => v === true || v === 'true' || templated(v);

function commandOf(step: StepDefinition): string | undefined {
  return step.commands[0]?.trim().toLowerCase();
}

function checkCommand(step: StepDefinition): ConfigProblem[] {
  const c = commandOf(step);
  if (c === undefined || c === '') return [{ field: 'command', message: `is required for s3 steps (${S3_COMMANDS.join(', ')})` }];
  if (step.commands.length > 1) return [{ field: 'command', message: 'an s3 step runs one command' }];
  if (templated(c) || (S3_COMMANDS as readonly string[]).includes(c)) return [];
  return [{ field: 'command', message: `must be one of ${S3_COMMANDS.join(', ')} for s3 steps` }];
}

const need = (field: string, message: string): ConfigProblem => ({ field: `config.${field}`, message });

function checkRequired(config: Config, command: string | undefined): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  if (!given(config.bucket)) out.push(need('bucket', 'is required for s3 steps (here or in the DAG-level s3 block)'));
  const tree = truthy(config.recursive) || given(config.prefix);
  if (command === 'upload') {
    if (!given(config.source)) out.push(need('source', 'is required for upload (the local file or directory)'));
    if (!given(config.key) && !tree) out.push(need('key', 'is required for upload (or recursive: true, or a prefix)'));
  }
  if (command === 'download') {
    if (!given(config.destination)) out.push(need('destination', 'is required for download (the local path)'));
    if (!given(config.key) && !tree) out.push(need('key', 'is required for download (or recursive: true, or a prefix)'));
  }
  if (command === 'delete' && !given(config.key) && !given(config.prefix)) out.push(need('key', 'or config.prefix is required for delete'));
  return out;
}

function checkValues(config: Config): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const f of ['recursive', 'forcePathStyle']) if (!isFlag(config[f])) out.push(need(f, 'must be true or false'));
  const n = config.maxKeys;
  if (n !== undefined && !templated(n) && !(typeof n === 'number' && Number.isInteger(n) && n >= 1)) out.push(need('maxKeys', 'must be a whole number of at least 1'));
  const sc = config.storageClass;
  if (sc !== undefined && !templated(sc) && !(typeof sc === 'string' && (S3_STORAGE_CLASSES as readonly string[]).includes(sc.trim().toUpperCase()))) {
    out.push(need('storageClass', `must be one of ${S3_STORAGE_CLASSES.join(', ')}`));
  }
  const ep = config.endpoint;
  if (given(ep) && !templated(ep) && !(typeof ep === 'string' && /^https?:\/\/[^/\s]+/i.test(ep.trim()))) out.push(need('endpoint', 'must be an http:// or https:// URL'));
  return out;
}

function unknownFields(config: Config): ConfigProblem[] {
  return Object.keys(config).filter((k) => !S3_FIELDS.has(k)).map((k) => need(k, 'is not an s3 step field'));
}

export const checkS3: ConfigCheck = (config, step) => [
  ...checkCommand(step),
  ...checkRequired(config, commandOf(step)),
  ...checkValues(config),
  ...unknownFields(config),
];
