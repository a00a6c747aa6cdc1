/**
 * LocalRunStore: the RunStore port on local disk ("the Kubernetes API on local disk").
 *
 * Concurrency model (why there is no cross-process lock):
 * - status.json has exactly one writer at a time: the driver that owns the run (in this process,
 *   or a restarted server that took the run over after the previous owner died). Within a process,
 *   a per-key mutex serialises compare-and-swap; the check always reads the version from the file
 *   itself (its first 128 bytes), so a write by another process is never missed.
 * - requestStop (e.g. CLI `svc stop` in another process) never touches status.json: it writes its
 *   own `stop` marker, which the driver reads with isStopRequested when RunEvents wakes it.
 * - Every file is replaced by rename (writeFileAtomic), so readers in any process see whole files.
 * Two processes updating the same run's status at the same instant could both pass the check; the
 * single-driver rule above excludes that, exactly as the Kubernetes backend relies on one operator.
 *
 * spec.json is written once at create and never changes, so updateStatus caches the parsed spec per
 * key (checked against the uid stored in status.json). The spec inside a resource returned by
 * updateStatus is that shared cache entry, deep-frozen: treat it as read-only (get returns copies).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../../core/errors.js';
import type { Clock } from '../../../core/ports/clock.js';
import type { RunKey, RunListFilter, RunStore } from '../../../core/ports/run-store.js';
import type { DagRunResource, DagRunStatus } from '../../../core/resources.js';
import { API_VERSION } from '../../../core/resources.js';
import { isNotFound, writeFileAtomic, writeFileAtomicSync, CorruptFileError } from '../../fs/atomic.js';
import type { SpecFile, StatusFile, StatusHead } from './files.js';
import {
  encodeStatus, initialVersion, nextVersion, parseStatusHead, STATUS_HEAD_BYTES, toResource,
  migrateSpecFile, validateSpecFile, validateStatusFile,
} from './files.js';
import { deepFreeze, mapLimit, readdirSafe, safe, writtenAt } from './helpers.js';
import { IndexKeeper } from './index-keeper.js';
import { KeyedMutex } from './mutex.js';
import { RunFiles } from './run-files.js';
import type { RunPaths } from './paths.js';
import { cacheKey, Layout } from './paths.js';
import { runKeyOf } from '../../../core/ports/run-store.js';
import { narrowsRuns, runEntryOf, selectRuns } from '../../../core/run/run-list.js';

/** Parsed specs kept for status updates (an LRU: only runs being updated need them). */
const SPEC_CACHE_MAX = 1000;

export interface LocalRunStoreOptions {
  /** Absolute path of the data directory; runs live under `<dataDir>/runs/`. */
  dataDir: string;
  /** Time source for creationTimestamp and initial versions (default: the system clock). */
  clock?: Clock;
}

/** Runs read in parallel by list(); bounded to stay far from EMFILE on big histories. */
const LIST_CONCURRENCY = 32;

/** A run directory found by list(), its paths computed once. */
interface Found { dagName: string; dagRunId: string; p: RunPaths }

/** The run index (ADR 0016), beside the runs: `runs/` holds only DAG directories. */
export const indexFile = (dataDir: string): string => join(dataDir, 'index', 'runs.sqlite');

export class LocalRunStore implements RunStore {
  private readonly layout: Layout;
  private readonly clock: Clock;
  private readonly mutex = new KeyedMutex();
  private readonly specs = new Map<string, SpecFile>();
  /** Highest version this instance wrote: a re-created run starts above it (see initialVersion). */
  private highWater = 0n;
  private readonly index: IndexKeeper;
  /** A step can plant links among its run's files: every read of them goes through the safe open. */
  private readonly files: RunFiles;

  constructor(opts: LocalRunStoreOptions) {
    this.layout = new Layout(opts.dataDir);
    this.files = new RunFiles(this.layout.runsRoot);
    this.clock = opts.clock ?? { now: () => Date.now() };
    this.index = new IndexKeeper({
      runsRoot: this.layout.runsRoot,
      dagNames: async () => (await readdirSafe(this.layout.runsRoot)).filter((n) => safe(() => this.layout.dagDir(n))),
      runIds: async (dagName) => {
        const dir = this.layout.dagDir(dagName);
        return (await readdirSafe(dir)).filter((id) => safe(() => this.layout.runPathsIn(dir, id)));
      },
      read: (key) => this.read(this.layout.computeRunPaths(key)),
    }, { file: indexFile(opts.dataDir), clock: this.clock });
  }

  /** Resolves once lists are answered from the run index (built now if it must be); false when it cannot be used. */
  indexReady(timeoutMs?: number): Promise<boolean> {
    return this.index.whenReady(timeoutMs);
  }

  /** Closes the run index file (the store still works; it reopens on the next use). */
  close(): void {
    this.index.close();
  }

  runDir(key: RunKey): string {
    return this.layout.runPaths(key).dir;
  }

  async create(run: DagRunResource): Promise<DagRunResource> {
    const key = runKeyOf(run);
    const p = this.layout.runPaths(key);
    this.index.open(); // first: in an empty data directory the index starts complete
    await mkdir(this.layout.dagDir(key.dagName), { recursive: true });
    try {
      await mkdir(p.dir); // not recursive: the atomic "does it exist" check
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new AlreadyExistsError(`run ${key.dagName}/${key.dagRunId} already exists`, { ...key });
      }
      throw err;
    }
    const now = this.clock.now();
    const { resourceVersion: _ignored, ...meta } = run.metadata;
    const spec: SpecFile = {
      apiVersion: API_VERSION,
      kind: 'DagRun',
      metadata: {
        ...meta,
        uid: randomUUID(),
        creationTimestamp: meta.creationTimestamp || new Date(now).toISOString(),
        labels: meta.labels ?? {},
        annotations: meta.annotations ?? {},
      },
      spec: run.spec,
    };
    const st: StatusFile = { resourceVersion: this.issue(initialVersion(now, this.highWater)), uid: spec.metadata.uid, status: run.status };
    const created = toResource(spec, st);
    const indexed = this.index.beforeWrite(created);
    try {
      // status.json first, spec.json last: a run dir without spec.json is half-written (list skips it).
      writeFileAtomicSync(p.status, encodeStatus(st));
      await writeFileAtomic(p.spec, JSON.stringify(spec), { mkdir: false });
    } catch (err) {
      this.index.abandon(indexed);
      await rm(p.dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    this.index.afterWrite(indexed);
    this.specs.delete(cacheKey(key));
    return structuredClone(created);
  }

  async get(key: RunKey): Promise<DagRunResource | undefined> {
    return this.read(this.layout.runPaths(key));
  }

  async updateStatus(key: RunKey, resourceVersion: string, status: DagRunStatus): Promise<DagRunResource> {
    const p = this.layout.runPaths(key);
    const ck = cacheKey(key);
    return this.mutex.run(ck, async () => {
      const head = await this.readStatusHead(p);
      if (!head) throw new NotFoundError(`run ${ck} not found`, { ...key });
      if (head.resourceVersion !== resourceVersion) {
        throw new ConflictError(`run ${ck} was modified: resourceVersion is ${head.resourceVersion}, not ${resourceVersion}`);
      }
      const spec = await this.cachedSpec(ck, p, head.uid);
      const st: StatusFile = { resourceVersion: this.issue(nextVersion(head.resourceVersion)), uid: head.uid, status };
      const updated = toResource(spec, st);
      const indexed = this.index.beforeWrite(updated);
      try {
        // Through the I/O thread pool: the driver writes behind, while the step it just started runs.
        await writeFileAtomic(p.status, encodeStatus(st), { mkdir: false });
      } catch (err) {
        this.index.abandon(indexed);
        if (isNotFound(err)) throw new NotFoundError(`run ${ck} not found`, { ...key });
        throw err;
      }
      this.index.afterWrite(indexed);
      return updated;
    });
  }

  /**
   * A list that narrows (a limit, a cursor, filters beyond name and root) is answered from the run index
   * once it is complete; otherwise, and for whole listings, from the run directories.
   */
  async list(filter: RunListFilter = {}): Promise<DagRunResource[]> {
    if (filter.dagName !== undefined) this.layout.dagDir(filter.dagName); // BadRequestError for an unsafe name
    if (filter.limit !== undefined && filter.limit <= 0) return [];
    if (filter.writtenBefore === undefined && narrowsRuns(filter)) {
      const indexed = await this.index.list(filter);
      if (indexed) return indexed;
    }
    return this.scan(filter);
  }

  /** Every run directory read: the filters and order of core on what the files say. */
  private async scan(filter: RunListFilter): Promise<DagRunResource[]> {
    const dagNames = filter.dagName !== undefined
      ? [filter.dagName]
      : (await readdirSafe(this.layout.runsRoot)).filter((n) => safe(() => this.layout.dagDir(n)));
    let found: Found[] = [];
    for (const dagName of dagNames) {
      const dagDir = this.layout.dagDir(dagName);
      for (const dagRunId of await readdirSafe(dagDir)) {
        try {
          found.push({ dagName, dagRunId, p: this.layout.runPathsIn(dagDir, dagRunId) });
        } catch { /* not a run directory name */ }
      }
    }
    if (filter.writtenBefore !== undefined) {
      const before = filter.writtenBefore;
      const old = await mapLimit(found, LIST_CONCURRENCY, async (f) => (await writtenAt(f.p.status)) <= before);
      found = found.filter((_, i) => old[i]);
    }
    const runs = (await mapLimit(found, LIST_CONCURRENCY, (f) => this.read(f.p))).filter((r): r is DagRunResource => r !== undefined);
    return selectRuns(runs, runEntryOf, filter);
  }

  async delete(key: RunKey): Promise<void> {
    const p = this.layout.runPaths(key);
    const ck = cacheKey(key);
    await this.mutex.run(ck, async () => {
      this.specs.delete(ck);
      // Its index row up to this version: a run created again under the key meanwhile keeps its own.
      const head = await this.readStatusHead(p).catch(() => undefined);
      // maxRetries: another process may be renaming a file into the dir while we empty it.
      await rm(p.dir, { recursive: true, force: true, maxRetries: 3 });
      this.index.afterDelete(key, head ? BigInt(head.resourceVersion) : undefined);
    });
  }

  async requestStop(key: RunKey): Promise<void> {
    const p = this.layout.runPaths(key);
    try {
      if (!this.files.exists(p.spec) || !this.files.dirsSafe(p.stop)) throw new NotFoundError(`run ${key.dagName}/${key.dagRunId} not found`, { ...key });
      await writeFileAtomic(p.stop, new Date(this.clock.now()).toISOString(), { mkdir: false });
    } catch (err) {
      if (isNotFound(err)) throw new NotFoundError(`run ${key.dagName}/${key.dagRunId} not found`, { ...key });
      throw err;
    }
  }

  async clearStop(key: RunKey): Promise<void> {
    await rm(this.layout.runPaths(key).stop, { force: true });
  }

  /** Read whenever a driver is woken: a synchronous existence check, no thread-pool round trip. */
  async isStopRequested(key: RunKey): Promise<boolean> {
    return this.files.exists(this.layout.runPaths(key).stop);
  }


  private issue(rv: string): string {
    const v = BigInt(rv);
    if (v > this.highWater) this.highWater = v;
    return rv;
  }

  /** Both files merged; undefined when absent, half-written (either file missing) or planted (a link, a FIFO). */
  private async read(p: RunPaths): Promise<DagRunResource | undefined> {
    const spec = await this.files.json(p.spec);
    if (spec === undefined) return undefined;
    if (!validateSpecFile(spec)) throw new CorruptFileError(p.spec, new Error('not a DagRun spec file'));
    const st = await this.files.json(p.status);
    if (st === undefined) return undefined;
    if (!validateStatusFile(st)) throw new CorruptFileError(p.status, new Error('not a DagRun status file'));
    return toResource(migrateSpecFile(spec), st);
  }

  /** Version and uid from the first bytes of status.json; the whole file only if the head is unusual. */
  private async readStatusHead(p: RunPaths): Promise<StatusHead | undefined> {
    const head = this.files.head(p.status, STATUS_HEAD_BYTES);
    if (head === undefined) return undefined;
    const parsed = parseStatusHead(head);
    if (parsed) return parsed;
    const st = await this.files.json(p.status);
    if (st === undefined) return undefined;
    if (!validateStatusFile(st)) throw new CorruptFileError(p.status, new Error('not a DagRun status file'));
    return { resourceVersion: st.resourceVersion, uid: st.uid };
  }

  private async cachedSpec(ck: string, p: RunPaths, uid: string): Promise<SpecFile> {
    const hit = this.specs.get(ck);
    if (hit && hit.metadata.uid === uid) {
      // Most recently used last: the Map's insertion order is the eviction order.
      this.specs.delete(ck);
      this.specs.set(ck, hit);
      return hit;
    }
    const spec = await this.files.json(p.spec);
    if (spec === undefined) throw new NotFoundError(`run ${ck} not found`);
    if (!validateSpecFile(spec)) throw new CorruptFileError(p.spec, new Error('not a DagRun spec file'));
    const frozen = deepFreeze(migrateSpecFile(spec));
    this.specs.set(ck, frozen);
    if (this.specs.size > SPEC_CACHE_MAX) this.specs.delete(this.specs.keys().next().value as string);
    return frozen;
  }
}
