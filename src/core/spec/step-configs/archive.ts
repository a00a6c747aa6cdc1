/**
 * Load-time check of an `archive` step (SPEC 2.6): the command is create, extract or list; source is
 * given (and destination for create); format, include/exclude, the flags and stripComponents have the
 * right shape; no unknown fields (a field of another tool, `strip_components`, would else be ignored
 * silently). It sees the config before expansion: a value written as `${VAR}` counts as given.
 */
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';
import type { StepDefinition } from '../types.js';

export const ARCHIVE_COMMANDS = ['create', 'extract', 'list'] as const;
export const ARCHIVE_FORMATS = ['tar', 'tar.gz', 'tgz', 'zip'] as const;
export const ARCHIVE_FIELDS: ReadonlySet<string> = new Set([
  'source', 'destination', 'format', 'include', 'exclude', 'verifyIntegrity', 'overwrite', 'stripComponents',
  'maxEntries', 'maxBytes',
]);

type Config = Record<string, unknown>;

const templated = (v: unknown): boolean => typeof v === 'string' && v.includes('${');
const given = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'string' && v.trim() === '');
const isFlag = (v: unknown): boolean => v === undefined || typeof v === 'boolean' || v === 'true' || v === 'false' || templated(v);

function checkCommand(step: StepDefinition): ConfigProblem[] {
  const c = step.commands[0];
  if (c === undefined || c.trim() === '') return [{ field: 'command', message: `is required for archive steps (${ARCHIVE_COMMANDS.join(', ')})` }];
  if (templated(c) || (ARCHIVE_COMMANDS as readonly string[]).includes(c.trim().toLowerCase())) return [];
  return [{ field: 'command', message: `must be one of ${ARCHIVE_COMMANDS.join(', ')} for archive steps` }];
}

function checkPaths(config: Config, step: StepDefinition): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  if (!given(config.source)) out.push({ field: 'config.source', message: 'is required for archive steps' });
  if (step.commands[0]?.trim().toLowerCase() === 'create' && !given(config.destination)) {
    out.push({ field: 'config.destination', message: 'is required for create (the archive to write)' });
  }
  return out;
}

function checkList(config: Config, field: string): ConfigProblem[] {
  const v = config[field];
  if (v === undefined || typeof v === 'string') return [];
  if (Array.isArray(v) && v.every((p) => typeof p === 'string' && p !== '')) return [];
  return [{ field: `config.${field}`, message: 'must be a list of glob patterns' }];
}

function checkValues(config: Config): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const f = config.format;
  if (f !== undefined && !templated(f) && !(typeof f === 'string' && (ARCHIVE_FORMATS as readonly string[]).includes(f.trim().toLowerCase()))) {
    out.push({ field: 'config.format', message: `must be one of ${ARCHIVE_FORMATS.join(', ')}` });
  }
  for (const flag of ['verifyIntegrity', 'overwrite']) if (!isFlag(config[flag])) out.push({ field: `config.${flag}`, message: 'must be true or false' });
  for (const [field, min] of [['stripComponents', 0], ['maxEntries', 1], ['maxBytes', 0]] as const) {
    const n = config[field];
    if (n !== undefined && !templated(n) && !(typeof n === 'number' && Number.isInteger(n) && n >= min)) {
      out.push({ field: `config.${field}`, message: `must be a whole number of at least ${min}` });
    }
  }
  return out;
}

function unknownFields(config: Config): ConfigProblem[] {
  return Object.keys(config).filter((k) => !ARCHIVE_FIELDS.has(k)).map((k) => ({ field: `config.${k}`, message: 'is not an archive step field' }));
}

export const checkArchive: ConfigCheck = (config, step) => [
  ...checkCommand(step),
  ...checkPaths(config, step),
  ...checkList(config, 'include'),
  ...checkList(config, 'exclude'),
  ...checkValues(config),
  ...unknownFields(config),
];
