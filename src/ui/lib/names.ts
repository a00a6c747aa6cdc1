/**
 * The rules of a DAG file name (SPEC 4: fileName `^[a-zA-Z0-9_-]+$`; SPEC 8: at most 40 characters; the
 * server also keeps the names of the endpoints under /dags), checked as a name is typed. The server
 * checks again; these only say it before the request.
 */
export const MAX_FILE_NAME_LENGTH = 40;
const FILE_NAME = /^[a-zA-Z0-9_-]+$/;
/** Names of endpoints under /dags (POST /dags answers 400 for them). */
const RESERVED = ['search', 'tags', 'validate'];

/** Why `name` cannot name a new DAG file, or undefined when it can. `taken`: the file names in use. */
export function fileNameProblem(name: string, taken: ReadonlySet<string> = new Set()): string | undefined {
  if (name === '') return 'A name is required.';
  if (name.length > MAX_FILE_NAME_LENGTH) return `At most ${MAX_FILE_NAME_LENGTH} characters (this one has ${name.length}).`;
  const bad = [...new Set(name.replace(/[a-zA-Z0-9_-]/g, ''))];
  if (!FILE_NAME.test(name)) return `Only letters, digits, "_" and "-": not ${bad.map((c) => (c === ' ' ? 'a space' : `"${c}"`)).join(', ')}.`;
  if (RESERVED.includes(name)) return `"${name}" is reserved (it names an endpoint under /dags).`;
  if (taken.has(name)) return `A DAG named ${name} exists already.`;
  return undefined;
}
