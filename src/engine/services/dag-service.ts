/**
 * DAG management (SPEC 4.3) over the DagStore and the catalog: create, edit, delete, rename, suspend,
 * validate, search and tags. Input checks live here so every caller (API, CLI later) gets them.
 */
import { BadRequestError } from '../../core/errors.js';
import type { DagDefinition } from '../../core/spec/types.js';
import type { DagStore } from '../../core/ports/dag-store.js';
import type { DagSource } from '../../core/ports/engine-ports.js';
import { checkSpecSize } from '../../core/spec/limits.js';
import { loadDagText, parseDagText } from '../../core/spec/load.js';
import { callCycleErrors } from './call-check.js';
import { MAX_DAG_NAME_LENGTH, isValidFileName } from '../../core/spec/names.js';
import { formatTag } from '../../core/spec/tags.js';
import type { DagsApi, SearchMatch } from './api.js';
import type { DagEntry, StoreDagCatalog } from './dag-catalog.js';

/** The DAG POST /dags creates without a spec; its name is the file name. */
export const DEFAULT_DAG_SPEC = `steps:\n  - name: hello\n    command: echo hello\n`;
/** Search: longest query, context lines around a match, matches per DAG. */
export const MAX_QUERY_LENGTH = 256;
const CONTEXT_LINES = 2;
const MAX_MATCHES_PER_DAG = 50;
/** Characters of one line shown in a match: a DAG of a few long lines must not answer megabytes per search. */
const MAX_MATCH_LINE = 500;
/** The DAG name validate uses when neither the spec nor the request names one. */
export const VALIDATE_DEFAULT_NAME = 'unnamed';


/** Path segments of /dags/... that a DAG's fileName would be shadowed by. */
export const RESERVED_FILE_NAMES: readonly string[] = ['search', 'tags', 'validate'];

/** A new fileName (create, rename): the fileName pattern and the DAG name length of SPEC 8. */
export function checkNewFileName(name: unknown, field: string): string {
  if (typeof name !== 'string') throw new BadRequestError(`${field} is required and must be a string`);
  if (name.length === 0 || name.length > MAX_DAG_NAME_LENGTH || !isValidFileName(name)) {
    throw new BadRequestError(`invalid ${field} "${name.slice(0, 80)}": 1-${MAX_DAG_NAME_LENGTH} letters, digits, "_" or "-"`);
  }
  if (RESERVED_FILE_NAMES.includes(name)) throw new BadRequestError(`${field} "${name}" is reserved (it names an endpoint under /dags)`);
  return name;
}

export function checkSpec(spec: unknown, required = true): string | undefined {
  if (spec === undefined && !required) return undefined;
  if (typeof spec !== 'string') throw new BadRequestError('spec is required and must be a string (the DAG YAML)');
  checkSpecSize('spec', Buffer.byteLength(spec));
  return spec;
}

export class DagService implements DagsApi {
  /** `find`: the DAGs sub-DAG calls reach (for call cycles); without it only the text itself is checked. */
  /**
   * `limits`: what the install refuses on top of the spec's rules (the pod policy of steps; kubernetes: a
   * DAG whose run status cannot fit a DagRun), as problems of the DAG and its local sub-DAGs.
   */
  constructor(
    private readonly store: DagStore, readonly catalog: StoreDagCatalog, private readonly find?: DagSource['find'],
    private readonly limits?: (def: DagDefinition) => string | readonly string[] | undefined,
  ) {}

  /** POST /dags: validates the spec first; AlreadyExistsError when the fileName is taken. */
  async create(name: unknown, spec: unknown): Promise<string> {
    const fileName = checkNewFileName(name, 'name');
    const text = checkSpec(spec, false) ?? DEFAULT_DAG_SPEC;
    const { errors } = await this.validate(text, fileName);
    if (errors.length > 0) throw new BadRequestError(`invalid spec: ${errors.join('; ')}`, { errors });
    await this.store.write(fileName, text, { createOnly: true });
    this.catalog.invalidate(fileName);
    return fileName;
  }

  /**
   * PUT spec: saves a valid text only, as the reference does; a text with problems (call cycles included)
   * is answered with them and saves nothing, so a typo never breaks a working DAG. Unknown DAG: NotFound first.
   */
  async putSpec(fileName: string, spec: unknown): Promise<string[]> {
    const text = checkSpec(spec) as string;
    await this.catalog.get(fileName);
    const { errors } = await this.validate(text, fileName);
    if (errors.length > 0) return errors;
    await this.store.write(fileName, text);
    this.catalog.invalidate(fileName);
    return [];
  }

  async delete(fileName: string): Promise<void> {
    await this.store.delete(fileName);
    this.catalog.invalidate(fileName);
  }

  async rename(fileName: string, newFileName: unknown): Promise<void> {
    const to = checkNewFileName(newFileName, 'newFileName');
    if (to === fileName) throw new BadRequestError('newFileName is the current fileName');
    await this.store.rename(fileName, to);
    this.catalog.invalidate(fileName);
    this.catalog.invalidate(to);
  }

  async suspend(fileName: string, suspend: unknown): Promise<void> {
    if (typeof suspend !== 'boolean') throw new BadRequestError('suspend is required and must be a boolean');
    await this.store.setSuspended(fileName, suspend);
  }

  /**
   * POST /dags/validate: never throws for a bad spec, only for a request that is not one. A valid text is
   * also checked for call cycles through the DAGs its literal calls reach (as stored now).
   */
  async validate(spec: unknown, name: unknown): Promise<{ valid: boolean; errors: string[]; dag: DagEntry['loaded']['definition'] | undefined }> {
    const text = checkSpec(spec) as string;
    if (name !== undefined && typeof name !== 'string') throw new BadRequestError('name must be a string');
    const fileName = name === undefined || name === '' ? VALIDATE_DEFAULT_NAME : name.slice(0, 200);
    const file = loadDagText(text, { fileName });
    if (file.errors.length > 0) return { valid: false, errors: file.errors, dag: file.dag };
    const parsed = parseDagText(text, fileName);
    const errors = [...(this.find ? await callCycleErrors(parsed, this.find) : []), ...this.limitProblems(parsed)];
    return { valid: errors.length === 0, errors, dag: file.dag };
  }

  private limitProblems(parsed: ReturnType<typeof parseDagText>): string[] {
    if (!this.limits) return [];
    const all = [parsed.definition, ...Object.values(parsed.localDags)];
    return all.flatMap((def) => {
      const found = this.limits!(def);
      const list = found === undefined ? [] : typeof found === 'string' ? [found] : found;
      return list.map((p) => (def === parsed.definition ? p : `local DAG ${def.name}: ${p}`));
    });
  }

  /** Case-insensitive literal search in every DAG text; each match with up to 2 lines of context each side. */
  async search(q: string): Promise<{ results: Array<{ entry: DagEntry; matches: SearchMatch[] }>; errors: string[] }> {
    const needle = q.toLowerCase();
    const { entries, errors } = await this.catalog.list();
    const results = entries
      .map((entry) => ({ entry, matches: grep(entry.text, needle) }))
      .filter((r) => r.matches.length > 0);
    return { results, errors };
  }

  async tags(): Promise<{ tags: string[]; errors: string[] }> {
    const { entries, errors } = await this.catalog.list();
    const tags = new Set(entries.flatMap((e) => (e.loaded.definition.tags ?? []).map(formatTag)));
    return { tags: [...tags].sort(), errors };
  }
}

/** A line of a match cut to MAX_MATCH_LINE characters around `at` (the match; 0 for a context line), marked with "…". */
function excerpt(line: string, at: number): string {
  if (line.length <= MAX_MATCH_LINE) return line;
  const from = Math.max(0, Math.min(at - MAX_MATCH_LINE / 2, line.length - MAX_MATCH_LINE));
  return `${from > 0 ? '…' : ''}${line.slice(from, from + MAX_MATCH_LINE)}${from + MAX_MATCH_LINE < line.length ? '…' : ''}`;
}

function grep(text: string, needle: string): SearchMatch[] {
  const lines = text.split(/\r?\n/);
  const out: SearchMatch[] = [];
  for (let i = 0; i < lines.length && out.length < MAX_MATCHES_PER_DAG; i++) {
    const at = (lines[i] as string).toLowerCase().indexOf(needle);
    if (at < 0) continue;
    const start = Math.max(0, i - CONTEXT_LINES);
    const end = Math.min(lines.length, i + CONTEXT_LINES + 1);
    const shown = lines.slice(start, end).map((l, j) => excerpt(l, start + j === i ? at : 0));
    out.push({ line: shown.join('\n'), lineNumber: i + 1, startLine: start + 1 });
  }
  return out;
}
