/**
 * StoreDagCatalog: the DagCatalog over a DagStore, with parsed DAGs cached by the store's stamp.
 *
 * Why a cache: GET /dags and the scheduler read every DAG file; parsing 1,000 YAML files per request
 * would dominate. A listing costs one directory read, one stat per file and one read of the suspend
 * flags; a file is re-read and re-parsed only when its stamp (inode, size, mtime) changed. Entries of
 * files that disappeared are dropped. Concurrent cold loads of one file share a promise.
 */
import { NotFoundError } from '../../core/errors.js';
import { callCycleError, findCallCycle } from '../../core/spec/calls.js';
import type { DagFileInfo, DagStore } from '../../core/ports/dag-store.js';
import { parseDagText } from '../../core/spec/load.js';
import type { DagDefinition, LoadedDagFile } from '../../core/spec/types.js';
import type { CatalogEntry, DagCatalog } from './catalog.js';

/** A catalog entry with the per-document view of local DAGs (their own errors) for the DAG detail. */
export interface DagEntry extends CatalogEntry {
  localDagList: LoadedDagFile['localDags'];
  /** No definition could be built (unreadable file, broken YAML): listed, and reported in `errors`. */
  unreadable: boolean;
}

type Parsed = Omit<DagEntry, 'suspended'>;

const LOAD_CONCURRENCY = 16;

/** Parses a DAG text as stored under fileName; never throws (problems land in errors). */
export function parseDag(fileName: string, text: string, location?: string): Pick<DagEntry, 'loaded' | 'localDagList' | 'unreadable'> {
  const { file, definition, localDags, errors } = parseDagText(text, fileName);
  const loaded = { definition, localDags, errors, ...(location ? { sourceFile: location } : {}) };
  return { loaded, localDagList: file.localDags, unreadable: !file.dag };
}

export class StoreDagCatalog implements DagCatalog {
  private readonly cache = new Map<string, { stamp: string; parsed: Promise<Parsed> }>();

  constructor(readonly store: DagStore) {}

  async get(fileName: string): Promise<DagEntry> {
    const info = await this.store.stat(fileName);
    if (!info) throw new NotFoundError(`DAG ${fileName} not found`, { fileName });
    const [parsed, suspended] = await Promise.all([this.parsed(info), this.store.isSuspended(fileName)]);
    return { ...parsed, suspended };
  }

  async list(): Promise<{ entries: DagEntry[]; errors: string[] }> {
    const [{ files, errors }, suspended] = await Promise.all([this.store.list(), this.store.suspended()]);
    const names = new Set(files.map((f) => f.fileName));
    for (const k of this.cache.keys()) if (!names.has(k)) this.cache.delete(k);
    const entries: DagEntry[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < files.length; i = next++) {
        const parsed = await this.parsed(files[i] as DagFileInfo);
        entries[i] = { ...parsed, suspended: suspended.has(parsed.fileName) };
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOAD_CONCURRENCY, files.length) }, worker));
    withCallCycles(entries);
    const broken = entries.filter((e) => e.unreadable);
    return { entries, errors: [...errors, ...broken.map((e) => `${e.fileName}: ${e.loaded.errors.join('; ')}`)] };
  }

  /** Forgets a file (after a write through the API: the next read re-parses it). */
  invalidate(fileName: string): void {
    this.cache.delete(fileName);
  }

  private parsed(info: DagFileInfo): Promise<Parsed> {
    const hit = this.cache.get(info.fileName);
    if (hit && hit.stamp === info.stamp) return hit.parsed;
    const parsed = this.load(info);
    this.cache.set(info.fileName, { stamp: info.stamp, parsed });
    parsed.catch(() => this.cache.delete(info.fileName));
    return parsed;
  }

  /** Reads and parses one file; a file that cannot be read becomes an entry with errors and no text. */
  private async load(info: DagFileInfo): Promise<Parsed> {
    try {
      const f = await this.store.read(info.fileName);
      if (!f) throw new NotFoundError(`DAG ${info.fileName} not found`, { fileName: info.fileName });
      return { fileName: info.fileName, text: f.text, updatedAt: f.updatedAt, ...parseDag(info.fileName, f.text, f.location) };
    } catch (e) {
      if (e instanceof NotFoundError) throw e;
      const message = `cannot read DAG file: ${e instanceof Error ? e.message : String(e)}`;
      return {
        fileName: info.fileName, text: '', updatedAt: info.updatedAt, localDagList: [], unreadable: true,
        loaded: { definition: { name: info.fileName } as DagDefinition, localDags: {}, errors: [message] },
      };
    }
  }
}

/** Marks each valid DAG whose literal calls close a cycle among the listed ones (a start refuses it too). */
function withCallCycles(entries: DagEntry[]): void {
  const files = new Map(entries.map((e) => [e.fileName, e.loaded]));
  entries.forEach((e, i) => {
    if (e.loaded.errors.length > 0) return;
    const chain = findCallCycle(e.fileName, e.loaded, files);
    if (chain) entries[i] = { ...e, loaded: { ...e.loaded, errors: [callCycleError(chain)] } };
  });
}
