/**
 * Typed reads of config values after `${VAR}` expansion, shared by the archive and s3 step types. An
 * expanded value is often text where YAML would have given a boolean or a number (`recursive: ${R}`
 * becomes "true"), so both spellings are accepted; anything else is a StepError naming the field.
 */
import { StepError, text } from '../runner.js';

type Config = Record<string, unknown>;

/** A boolean field: true/false, or the text "true"/"false"; `fallback` when absent. */
export function flag(config: Config, field: string, type: string, fallback = false): boolean {
  const v = config[field];
  if (v === undefined || v === null || v === '') return fallback;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new StepError(`${type} step: config.${field} must be true or false`);
}

/** A whole-number field at least `min`; `fallback` when absent. */
export function integer(config: Config, field: string, type: string, min: number, fallback: number): number {
  const v = config[field];
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'string' ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) throw new StepError(`${type} step: config.${field} must be a whole number of at least ${min}`);
  return n;
}

/** A list of strings: a YAML list, or one string (one item). Empty when absent. */
export function strings(config: Config, field: string, type: string): string[] {
  const v = config[field];
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  return items.map((item: unknown, i) => {
    if ((typeof item === 'string' && item.trim() !== '') || typeof item === 'number') return String(item);
    throw new StepError(`${type} step: config.${field}[${i}] must be a non-empty string`);
  });
}

/** An optional string field, trimmed; undefined when absent or empty. */
export function optional(config: Config, field: string): string | undefined {
  const v = text(config, field)?.trim();
  return v === '' ? undefined : v;
}
