/** Name rules shared by the loader and the API (SPEC 2.2, 2.3, 2.7, 8). */

export const MAX_DAG_NAME_LENGTH = 40;
export const MAX_STEP_NAME_LENGTH = 40;

const DAG_NAME = /^[a-zA-Z0-9_.-]+$/;
const FILE_NAME = /^[a-zA-Z0-9_-]+$/;
const STEP_ID = /^[a-zA-Z][a-zA-Z0-9_-]*$/;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Words a step id cannot be: they name properties in `${id.stdout}`-style references. */
export const RESERVED_STEP_IDS: readonly string[] = ['env', 'params', 'args', 'stdout', 'stderr', 'output', 'outputs'];

export function isValidDagName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_DAG_NAME_LENGTH && DAG_NAME.test(name);
}

/** Stored DAG file names (without extension). */
export function isValidFileName(name: string): boolean {
  return FILE_NAME.test(name);
}

/** Why a DAG name is invalid, or undefined when it is fine. */
export function dagNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_DAG_NAME_LENGTH) return `must be at most ${MAX_DAG_NAME_LENGTH} characters`;
  if (!DAG_NAME.test(name)) return 'may contain only letters, digits, "_", "." and "-"';
  return undefined;
}

/** Why a step id is invalid, or undefined when it is fine. */
export function stepIdProblem(id: string): string | undefined {
  if (!STEP_ID.test(id)) return `invalid id "${id}": must start with a letter and contain only letters, digits, "_" and "-"`;
  if (RESERVED_STEP_IDS.includes(id.toLowerCase())) return `"${id}" is a reserved word`;
  return undefined;
}

export function isValidVarName(name: string): boolean {
  return VAR_NAME.test(name);
}

/**
 * Default outputs.json key of an output variable: SCREAMING_SNAKE_CASE to camelCase
 * (RESULT -> result, RESULT_VALUE -> resultValue, ALREADY_CAMEL_Case -> alreadyCamelCase).
 * A name without underscores that already has lower-case letters (myVar) is kept as written.
 */
export function toCamelKey(name: string): string {
  if (!name.includes('_') && /[a-z]/.test(name)) return name;
  const parts = name.split('_').filter((p) => p !== '');
  return parts
    .map((p, i) => (i === 0 ? p.toLowerCase() : p.charAt(0).toUpperCase() + p.slice(1).toLowerCase()))
    .join('');
}
