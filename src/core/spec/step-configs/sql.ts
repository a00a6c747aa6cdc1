/**
 * Load-time checks of the database step types, postgres and sqlite (SPEC 2.6: `dsn` and `command`; the
 * other fields follow the reference's names). A step needs a `dsn` and its SQL (`command`, `script` or
 * `config.file`, one of them); the fields have their types and values; an unknown field is reported (a
 * reference field svc does not implement, such as `streaming` or `import`, would otherwise be ignored
 * silently). Values written as `${VAR}` count as given and are not type-checked: the runner checks them
 * again once expanded.
 */
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';
import type { StepDefinition } from '../types.js';

export type SqlType = 'postgres' | 'sqlite';

export const OUTPUT_FORMATS = ['jsonl', 'json', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Postgres isolation levels by the names the reference uses; `default` is the server's own. */
export const ISOLATION_LEVELS: Readonly<Record<string, string>> = {
  default: '',
  read_uncommitted: 'READ UNCOMMITTED',
  read_committed: 'READ COMMITTED',
  repeatable_read: 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
};

const COMMON = ['dsn', 'params', 'file', 'timeout', 'transaction', 'outputFormat', 'headers', 'nullString', 'maxRows'];
export const SQL_FIELDS: Readonly<Record<SqlType, ReadonlySet<string>>> = {
  postgres: new Set([...COMMON, 'isolationLevel', 'advisoryLock']),
  sqlite: new Set([...COMMON, 'busyTimeout']),
};

const DSN_FORMS: Record<SqlType, string> = {
  postgres: 'a postgres:// URL or a key=value connection string',
  sqlite: 'a file path, :memory: or a file: URI',
};

const templated = (v: unknown): boolean => typeof v === 'string' && v.includes('${');
const blank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const given = (v: unknown): boolean => !blank(v) && !templated(v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where the step's SQL comes from: command, script and config.file, as written. */
function sources(config: Record<string, unknown>, step: StepDefinition): string[] {
  return [
    ...(step.commands.length > 0 ? ['command'] : []),
    ...(step.script !== undefined ? ['script'] : []),
    ...(!blank(config.file) ? ['config.file'] : []),
  ];
}

function checkSource(type: SqlType, config: Record<string, unknown>, step: StepDefinition): ConfigProblem[] {
  const found = sources(config, step);
  if (found.length === 0) return [{ field: 'command', message: `is required for ${type} steps (the SQL; or script, or config.file)` }];
  if (found.length > 1) return [{ field: found[1]!, message: `cannot be combined with ${found[0]} (the SQL comes from one of command, script, config.file)` }];
  return [];
}

type Add = (field: string, message: string) => void;

function checkTypes(config: Record<string, unknown>, add: Add): void {
  if (given(config.file) && typeof config.file !== 'string') add('file', 'must be a file path');
  const format = config.outputFormat;
  if (given(format) && !OUTPUT_FORMATS.includes(format as OutputFormat)) add('outputFormat', `must be ${OUTPUT_FORMATS.join(', ')}`);
  for (const f of ['timeout', 'maxRows', 'busyTimeout']) {
    const v = config[f];
    if (given(v) && !(typeof v === 'number' && Number.isFinite(v) && v >= 0)) add(f, 'must be a number, 0 or more');
  }
  for (const f of ['transaction', 'headers']) if (given(config[f]) && typeof config[f] !== 'boolean') add(f, 'must be true or false');
  for (const f of ['nullString', 'advisoryLock']) if (config[f] !== undefined && config[f] !== null && typeof config[f] !== 'string') add(f, 'must be a string');
}

function checkIsolation(config: Record<string, unknown>, add: Add): void {
  const level = config.isolationLevel;
  if (!given(level)) return;
  if (!(typeof level === 'string' && level in ISOLATION_LEVELS)) add('isolationLevel', `must be one of ${Object.keys(ISOLATION_LEVELS).join(', ')}`);
  else if (level !== 'default' && config.transaction !== true && !templated(config.transaction)) add('isolationLevel', 'applies to a transaction: set transaction: true');
}

function checkValues(type: SqlType, config: Record<string, unknown>): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const add: Add = (field, message) => { out.push({ field: `config.${field}`, message }); };
  if (blank(config.dsn)) add('dsn', `is required for ${type} steps (${DSN_FORMS[type]})`);
  else if (typeof config.dsn !== 'string') add('dsn', `must be a string (${DSN_FORMS[type]})`);
  checkTypes(config, add);
  checkIsolation(config, add);
  for (const k of Object.keys(config)) if (!SQL_FIELDS[type].has(k)) add(k, `is not a ${type} step field (${[...SQL_FIELDS[type]].join(', ')})`);
  return out;
}

function checkParams(config: Record<string, unknown>, step: StepDefinition): ConfigProblem[] {
  const p = config.params;
  if (p === undefined || p === null) return [];
  if (!isObject(p) && !Array.isArray(p) && !templated(p)) return [{ field: 'config.params', message: 'must be a map (named :name parameters) or a list (positional parameters)' }];
  if (step.params !== undefined) return [{ field: 'params', message: 'cannot be combined with config.params: give the parameters in one of them' }];
  return [];
}

function checkSql(type: SqlType): ConfigCheck {
  return (config, step) => [...checkValues(type, config), ...checkSource(type, config, step), ...checkParams(config, step)];
}

export const checkPostgres: ConfigCheck = checkSql('postgres');
export const checkSqlite: ConfigCheck = checkSql('sqlite');
