/**
 * What a database step is asked to do, the same for postgres and sqlite: the SQL (`command`, `script`
 * or the file `config.file`) split into statements with their parameters bound, and the options of
 * the run and of the output (field names as the reference has them). Bad values are step errors that
 * name the field.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { ExecRequest } from '../../../core/ports/executor.js';
import { ISOLATION_LEVELS, OUTPUT_FORMATS, SQL_FIELDS, type OutputFormat, type SqlType } from '../../../core/spec/step-configs/sql.js';
import { StepError } from '../runner.js';
import type { FormatOptions } from './format.js';
import { bindStatement, stepParams, type Bound } from './params.js';
import { lineColumn, splitSql } from './split.js';

export interface SqlStatement extends Bound {
  /** 1-based, and how many there are, for messages. */
  number: number;
  /** Where the statement starts in `source`. */
  offset: number;
}

export interface SqlJob {
  /** The SQL text as given (command, script or the file), for line numbers in errors. */
  source: string;
  statements: SqlStatement[];
  output: FormatOptions;
  /** 0: no cap. */
  maxRows: number;
  /** 0: no limit (the step's timeoutSec still applies). */
  timeoutMs: number;
  transaction: boolean;
  /** SQL of the isolation level (postgres), '' for the server's default. */
  isolation: string;
}

function num(config: Record<string, unknown>, field: string, type: string, fallback: number): number {
  const v = config[field];
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n < 0) throw new StepError(`${type} step: config.${field} must be a number, 0 or more`);
  return n;
}

function flag(config: Record<string, unknown>, field: string, type: string, fallback: boolean): boolean {
  const v = config[field];
  if (v === undefined || v === null || v === '') return fallback;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new StepError(`${type} step: config.${field} must be true or false`);
}

function str(config: Record<string, unknown>, field: string, type: string): string | undefined {
  const v = config[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new StepError(`${type} step: config.${field} must be a string`);
  return v;
}

export function outputOptions(config: Record<string, unknown>, type: string): FormatOptions {
  const format = str(config, 'outputFormat', type) ?? 'jsonl';
  if (!OUTPUT_FORMATS.includes(format as OutputFormat)) throw new StepError(`${type} step: config.outputFormat must be ${OUTPUT_FORMATS.join(', ')}, not "${format}"`);
  return { format: format as OutputFormat, headers: flag(config, 'headers', type, true), nullString: str(config, 'nullString', type) ?? '' };
}

function isolation(config: Record<string, unknown>, type: string): string {
  const level = str(config, 'isolationLevel', type);
  if (level === undefined || level === '') return '';
  const sql = ISOLATION_LEVELS[level];
  if (sql === undefined) throw new StepError(`${type} step: config.isolationLevel must be one of ${Object.keys(ISOLATION_LEVELS).join(', ')}`);
  return sql;
}

/** The SQL text: the file is read as written (no `${VAR}` expansion), relative to the working directory. */
async function sqlSource(req: ExecRequest, type: string): Promise<string> {
  const file = str(req.config, 'file', type);
  const given = [req.commands.length > 0, req.script !== undefined, !!file].filter(Boolean).length;
  if (given === 0) throw new StepError(`${type} step: no SQL: set command, script or config.file`);
  if (given > 1) throw new StepError(`${type} step: the SQL comes from one of command, script and config.file, not several`);
  if (!file) return req.script ?? req.commands.join(';\n');
  const path = isAbsolute(file) ? file : resolve(req.workingDir, file);
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new StepError(`${type} step: cannot read config.file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export async function sqlJob(req: ExecRequest, type: SqlType): Promise<SqlJob> {
  const unknown = Object.keys(req.config).find((k) => !SQL_FIELDS[type].has(k));
  if (unknown !== undefined) throw new StepError(`${type} step: config.${unknown} is not a ${type} step field (${[...SQL_FIELDS[type]].join(', ')})`);
  const source = await sqlSource(req, type);
  const split = splitSql(source, type);
  if (split.length === 0) throw new StepError(`${type} step: the SQL has no statements`);
  const params = stepParams(type, req.config, req.step.params, req.env);
  const statements = split.map((s, i) => {
    const where = split.length > 1 ? `${type} step: statement ${i + 1}` : `${type} step`;
    return { ...bindStatement(s, params, type, where), number: i + 1, offset: s.offset };
  });
  return {
    source, statements, output: outputOptions(req.config, type),
    maxRows: Math.floor(num(req.config, 'maxRows', type, 0)),
    timeoutMs: num(req.config, 'timeout', type, 0) * 1000,
    transaction: flag(req.config, 'transaction', type, false),
    isolation: isolation(req.config, type),
  };
}

/** `statement 2` when there are several, for messages. */
export function statementName(job: SqlJob, stmt: SqlStatement): string {
  return job.statements.length > 1 ? `statement ${stmt.number}` : 'the statement';
}

/** Line and column in the SQL as written of a 0-based position in a statement as sent. */
export function sourcePosition(job: SqlJob, stmt: SqlStatement, pos: number): string {
  const { line, column } = lineColumn(job.source, stmt.offset + stmt.original(pos));
  return `line ${line}, column ${column}`;
}
