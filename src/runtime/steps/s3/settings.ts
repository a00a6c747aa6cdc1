/**
 * The s3 step's settings from its command and expanded config (the DAG-level `s3` block already merged
 * in, step fields over it). Local paths are relative to the step's working directory.
 */
import { resolve } from 'node:path';
import type { ExecRequest } from '../../../core/ports/executor.js';
import { S3_COMMANDS, S3_STORAGE_CLASSES } from '../../../core/spec/step-configs/s3.js';
import { flag, integer, optional } from '../archive/values.js';
import { StepError } from '../runner.js';

export type S3Command = (typeof S3_COMMANDS)[number];

export interface Connection {
  region?: string;
  endpoint?: string;
  forcePathStyle: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
}

export interface LocalPath {
  /** As written (shown in the output). */
  name: string;
  path: string;
}

export interface S3Settings {
  command: S3Command;
  bucket: string;
  key?: string;
  prefix?: string;
  source?: LocalPath;
  destination?: LocalPath;
  /** list: the most objects printed (paging through the bucket until then). */
  maxKeys: number;
  recursive: boolean;
  contentType?: string;
  storageClass?: string;
  connection: Connection;
}

const T = 's3';
/** The reference's default: a list stops after 1000 objects unless maxKeys says otherwise. */
export const DEFAULT_MAX_KEYS = 1000;

function command(raw: string | undefined): S3Command {
  const c = (raw ?? '').trim().toLowerCase();
  if ((S3_COMMANDS as readonly string[]).includes(c)) return c as S3Command;
  throw new StepError(`s3 step: command must be one of ${S3_COMMANDS.join(', ')}${c ? ` (got "${raw?.trim()}")` : ''}`);
}

function storageClass(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const sc = raw.toUpperCase();
  if (!(S3_STORAGE_CLASSES as readonly string[]).includes(sc)) throw new StepError(`s3 step: config.storageClass "${raw}" is not a storage class (one of ${S3_STORAGE_CLASSES.join(', ')})`);
  return sc;
}

function connection(c: Record<string, unknown>): Connection {
  const endpoint = optional(c, 'endpoint');
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+/i.test(endpoint)) throw new StepError(`s3 step: config.endpoint "${endpoint}" must be an http:// or https:// URL`);
  const fields = { region: optional(c, 'region'), endpoint, accessKeyId: optional(c, 'accessKeyId'), secretAccessKey: optional(c, 'secretAccessKey'), sessionToken: optional(c, 'sessionToken') };
  return { ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)), forcePathStyle: flag(c, 'forcePathStyle', T) };
}

/** What each command needs, as the reference asks for it, before anything is contacted. */
function requireFields(s: S3Settings): void {
  const tree = s.recursive || s.prefix !== undefined;
  const missing = (what: string): never => { throw new StepError(`s3 step: ${what}`); };
  if (s.command === 'upload' && !s.source) missing('config.source is required for upload');
  if (s.command === 'upload' && s.key === undefined && !tree) missing('config.key is required for upload (or recursive: true, or a prefix)');
  if (s.command === 'download' && !s.destination) missing('config.destination is required for download');
  if (s.command === 'download' && s.key === undefined && !tree) missing('config.key is required for download (or recursive: true, or a prefix)');
  if (s.command === 'delete' && s.key === undefined && s.prefix === undefined) missing('config.key or config.prefix is required for delete');
}

export function s3Settings(req: ExecRequest): S3Settings {
  const cmd = command(req.commands[0]);
  const c = req.config;
  const bucket = optional(c, 'bucket');
  if (bucket === undefined) throw new StepError('s3 step: config.bucket is required (here or in the DAG-level s3 block)');
  const local = (field: string): LocalPath | undefined => {
    const name = optional(c, field);
    return name === undefined ? undefined : { name, path: resolve(req.workingDir, name) };
  };
  const opt = <T>(k: string, v: T | undefined): Record<string, T> => (v === undefined ? {} : { [k]: v });
  const s: S3Settings = {
    command: cmd, bucket,
    ...opt('key', optional(c, 'key')), ...opt('prefix', optional(c, 'prefix')),
    ...opt('source', local('source')), ...opt('destination', local('destination')),
    maxKeys: integer(c, 'maxKeys', T, 1, DEFAULT_MAX_KEYS),
    recursive: flag(c, 'recursive', T),
    ...opt('contentType', optional(c, 'contentType')),
    ...opt('storageClass', storageClass(optional(c, 'storageClass'))),
    connection: connection(c),
  };
  requireFields(s);
  return s;
}
