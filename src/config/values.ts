/** Reading one configuration value, from the environment (strings) or the YAML config file (any type). */
export class ConfigError extends Error {}

/** A non-empty string (numbers as written), else undefined. */
export const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** true/false/1/0 from the environment, or a YAML boolean; unset is the fallback, anything else an error. */
export function bool(name: string, v: unknown, fallback: boolean): boolean {
  if (v === undefined || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new ConfigError(`${name}: "${String(v)}" must be true or false`);
}

/** The value at a dotted path (`auth.oidc.issuer`) of the config file, of any type. */
export function at(file: Partial<Record<string, unknown>>, path: string): unknown {
  let v: unknown = file;
  for (const k of path.split('.')) v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}
