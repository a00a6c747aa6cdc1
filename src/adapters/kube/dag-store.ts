/**
 * KubeDagStore: the DagStore port over the Dag custom resources (svc.io/v1alpha1) of one namespace.
 *
 * - fileName <-> object name dagObjectName(fileName), the fileName kept in an annotation; a Dag applied
 *   without it (kubectl, GitOps) is the fileName of its name.
 * - spec = the DAG file's fields (dagSpecOf), never defaulted; a text that does not load is stored
 *   with an empty spec, as the file store keeps what users write. The text itself comes back as
 *   written until the spec is changed behind the store's back (dag-object.ts).
 * - stamp = uid, generation and a hash of the text annotations: it moves with the text, not with
 *   status writes (stampOf). Writes replace with compare-and-swap on resourceVersion, re-read and
 *   retried on conflict, so two API replicas writing one Dag never fail with a lost update.
 * - suspended = status.suspended, through the status subresource.
 * - With `cache`, list(), stat() and the suspend flags come from a watch-fed cache (dag-cache.ts).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { AlreadyExistsError, BadRequestError, ConflictError, NotFoundError } from '../../core/errors.js';
import { dagObjectName } from '../../core/naming.js';
import type { DagFileInfo, DagFileText, DagStore } from '../../core/ports/dag-store.js';
import { isValidFileName } from '../../core/spec/names.js';
import { CustomResources } from './client.js';
import { DagCache } from './dag-cache.js';
import { dagObject, fileNameOf, infoOf, isSuspendedDag, renamedDag, specOfText, textOf, type DagObject } from './dag-object.js';

export interface KubeDagStoreOptions {
  /** Serve list(), stat() and suspend flags from a watch-fed cache (default false: every call asks the API). */
  cache?: boolean;
  /** Attempts of a write that keeps losing the compare-and-swap to other writers (default 8). */
  writeAttempts?: number;
}

const DEFAULT_WRITE_ATTEMPTS = 8;
/** A listing right after more own writes than this (an import) LISTs once rather than GETting each. */
const MAX_STALE_GETS = 16;

function checked(fileName: string): string {
  if (typeof fileName !== 'string' || fileName.length > 200 || !isValidFileName(fileName)) {
    throw new BadRequestError(`invalid fileName ${JSON.stringify(String(fileName).slice(0, 80))}: use letters, digits, "_" and "-" (at most 200)`);
  }
  return fileName;
}

const exists = (fileName: string) => new AlreadyExistsError(`DAG ${fileName} already exists`, { fileName });
const missing = (fileName: string) => new NotFoundError(`DAG ${fileName} not found`, { fileName });
const lostRace = (e: unknown) => e instanceof ConflictError || e instanceof AlreadyExistsError;

export class KubeDagStore implements DagStore {
  private readonly dags: CustomResources<DagObject>;
  private readonly cache: DagCache | undefined;
  private readonly writeAttempts: number;

  constructor(kc: KubeConfig, readonly namespace: string, opts: KubeDagStoreOptions = {}) {
    this.dags = new CustomResources<DagObject>(kc, namespace, 'dags');
    this.cache = opts.cache ? new DagCache(kc, namespace) : undefined;
    this.writeAttempts = opts.writeAttempts ?? DEFAULT_WRITE_ATTEMPTS;
  }

  /** Settles once the cache's first sync is over (at once without a cache). */
  async ready(): Promise<void> {
    await this.cache?.started;
  }

  /** Stops the cache's watch. */
  async close(): Promise<void> {
    await this.cache?.close();
  }

  async list(): Promise<{ files: DagFileInfo[]; errors: string[] }> {
    const files: DagFileInfo[] = [];
    const errors: string[] = [];
    for (const obj of await this.objects()) {
      const fileName = fileNameOf(obj);
      if (fileName) files.push(infoOf(fileName, obj));
      else errors.push(`Dag ${obj.metadata.name}: its name is no DAG fileName (letters, digits, "_" and "-")`);
    }
    return { files: files.sort((a, b) => (a.fileName < b.fileName ? -1 : 1)), errors };
  }

  async stat(fileName: string): Promise<DagFileInfo | undefined> {
    const obj = await this.object(checked(fileName));
    return obj && infoOf(fileName, obj);
  }

  async read(fileName: string): Promise<DagFileText | undefined> {
    const obj = await this.dags.get(dagObjectName(checked(fileName)));
    return obj && { ...infoOf(fileName, obj), text: textOf(obj) };
  }

  async write(fileName: string, text: string, opts: { createOnly?: boolean } = {}): Promise<void> {
    const spec = specOfText(text, checked(fileName));
    if (opts.createOnly) {
      await this.create(dagObject(fileName, text, spec), fileName);
      return;
    }
    await this.withRetries(fileName, async () => {
      const current = await this.dags.get(dagObjectName(fileName));
      const obj = dagObject(fileName, text, spec, current);
      this.wrote(current ? await this.dags.replace(obj) : await this.dags.create(obj));
    });
  }

  async delete(fileName: string): Promise<void> {
    const name = dagObjectName(checked(fileName));
    const obj = await this.dags.get(name);
    if (!obj) throw missing(fileName);
    await this.dags.delete(name);
    this.cache?.deleted(name, obj.metadata.uid);
  }

  /** Create the copy first, then delete the original: a failure half-way leaves both, never neither. */
  async rename(fileName: string, newFileName: string): Promise<void> {
    checked(newFileName);
    const obj = await this.dags.get(dagObjectName(checked(fileName)));
    if (!obj) throw missing(fileName);
    await this.create(renamedDag(obj, newFileName), newFileName);
    if (isSuspendedDag(obj)) await this.setSuspended(newFileName, true);
    try {
      // Only the version that was copied: a change made meanwhile is not lost (the copy is taken back).
      await this.dags.delete(obj.metadata.name, { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion });
    } catch (e) {
      if (e instanceof ConflictError) await this.dags.delete(dagObjectName(newFileName));
      throw e;
    }
    this.cache?.deleted(obj.metadata.name, obj.metadata.uid);
  }

  async isSuspended(fileName: string): Promise<boolean> {
    return isSuspendedDag(await this.object(checked(fileName)));
  }

  async suspended(): Promise<Set<string>> {
    const names = (await this.objects()).filter(isSuspendedDag).map(fileNameOf);
    return new Set(names.filter((n): n is string => n !== undefined));
  }

  async setSuspended(fileName: string, suspended: boolean): Promise<void> {
    try {
      this.wrote(await this.dags.mergePatchStatus(dagObjectName(checked(fileName)), { status: { suspended } }));
    } catch (e) {
      throw e instanceof NotFoundError ? missing(fileName) : e;
    }
  }

  /** Not `this.cache?.wrote(await ...)`: optional chaining would skip the write itself without a cache. */
  private wrote(obj: DagObject): void {
    this.cache?.wrote(obj);
  }

  private async create(obj: DagObject, fileName: string): Promise<void> {
    try {
      this.wrote(await this.dags.create(obj));
    } catch (e) {
      throw e instanceof AlreadyExistsError ? exists(fileName) : e;
    }
  }

  /** Re-read and try again while other writers win the compare-and-swap (or the create). */
  private async withRetries(fileName: string, attempt: () => Promise<void>): Promise<void> {
    for (let i = 1; ; i++) {
      try {
        return await attempt();
      } catch (e) {
        if (!lostRace(e)) throw e;
        if (i >= this.writeAttempts) throw new ConflictError(`DAG ${fileName} kept changing while it was written (${i} attempts): try again`);
        await new Promise((r) => setTimeout(r, Math.random() * 10 * i));
      }
    }
  }

  /**
   * One Dag by object name: from the cache when it is synced and as new as this store's own writes. A
   * Dag the cache does not have is asked for directly: another replica may have just created it (a
   * client's POST through one replica, then PUT through another, must not see a 404).
   */
  private async object(fileName: string): Promise<DagObject | undefined> {
    const name = dagObjectName(fileName);
    if (this.cache?.synced && !this.cache.isStale(name)) return this.cache.get(name) ?? this.dags.get(name);
    return this.dags.get(name);
  }

  /** Every Dag of the namespace: the cache with this store's unseen writes read afresh, else a LIST. */
  private async objects(): Promise<DagObject[]> {
    if (!this.cache?.synced) return this.dags.list();
    const stale = this.cache.stale();
    if (stale.length > MAX_STALE_GETS) return this.dags.list();
    const byName = new Map(this.cache.list().map((o) => [o.metadata.name, o]));
    await Promise.all(stale.map(async (name) => {
      const fresh = await this.dags.get(name);
      if (fresh) byName.set(name, fresh);
      else byName.delete(name);
    }));
    return [...byName.values()];
  }
}
