/** The DagStore in memory (engine and API unit tests); passes the same conformance suite as the others. */
import { AlreadyExistsError, BadRequestError, NotFoundError } from '../../core/errors.js';
import type { Clock } from '../../core/ports/clock.js';
import type { DagFileInfo, DagFileText, DagStore } from '../../core/ports/dag-store.js';
import { isValidFileName } from '../../core/spec/names.js';

interface Entry { text: string; version: number; updatedAt: string; suspended: boolean }

function checked(fileName: string): string {
  if (typeof fileName !== 'string' || fileName.length > 200 || !isValidFileName(fileName)) {
    throw new BadRequestError(`invalid fileName ${JSON.stringify(String(fileName).slice(0, 80))}: use letters, digits, "_" and "-" (at most 200)`);
  }
  return fileName;
}

export class MemoryDagStore implements DagStore {
  private readonly dags = new Map<string, Entry>();
  private version = 0;

  constructor(private readonly clock: Clock = { now: () => Date.now() }) {}

  async list(): Promise<{ files: DagFileInfo[]; errors: string[] }> {
    return { files: [...this.dags.keys()].sort().map((n) => this.info(n, this.dags.get(n)!)), errors: [] };
  }

  async stat(fileName: string): Promise<DagFileInfo | undefined> {
    const e = this.dags.get(checked(fileName));
    return e && this.info(fileName, e);
  }

  async read(fileName: string): Promise<DagFileText | undefined> {
    const e = this.dags.get(checked(fileName));
    return e && { ...this.info(fileName, e), text: e.text };
  }

  async write(fileName: string, text: string, opts: { createOnly?: boolean } = {}): Promise<void> {
    const before = this.dags.get(checked(fileName));
    if (before && opts.createOnly) throw new AlreadyExistsError(`DAG ${fileName} already exists`);
    this.dags.set(fileName, { text, version: ++this.version, updatedAt: new Date(this.clock.now()).toISOString(), suspended: before?.suspended ?? false });
  }

  async delete(fileName: string): Promise<void> {
    if (!this.dags.delete(checked(fileName))) throw new NotFoundError(`DAG ${fileName} not found`);
  }

  async rename(fileName: string, newFileName: string): Promise<void> {
    checked(newFileName);
    const e = this.dags.get(checked(fileName));
    if (!e) throw new NotFoundError(`DAG ${fileName} not found`);
    if (this.dags.has(newFileName)) throw new AlreadyExistsError(`DAG ${newFileName} already exists`);
    this.dags.delete(fileName);
    this.dags.set(newFileName, { ...e, version: ++this.version });
  }

  async isSuspended(fileName: string): Promise<boolean> {
    return this.dags.get(checked(fileName))?.suspended ?? false;
  }

  async suspended(): Promise<Set<string>> {
    return new Set([...this.dags].filter(([, e]) => e.suspended).map(([n]) => n));
  }

  async setSuspended(fileName: string, suspended: boolean): Promise<void> {
    const e = this.dags.get(checked(fileName));
    if (!e) throw new NotFoundError(`DAG ${fileName} not found`);
    e.suspended = suspended;
  }

  private info(fileName: string, e: Entry): DagFileInfo {
    return { fileName, stamp: String(e.version), updatedAt: e.updatedAt };
  }
}
