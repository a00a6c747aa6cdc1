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
import { access, mkdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../../core/errors.js';
import type { Clock } from '../../../core/ports/clock.js';
import type { RunKey, RunListFilter, RunStore } from '../../../core/ports/run-store.js';
import type { DagRunResource, DagRunStatus } from '../../../core/resources.js';
import { API_VERSION } from '../../../core/resources.js';
import { isNotFound, readHead, readHeadSync, readJson, writeFileAtomic, writeFileAtomicSync, CorruptFileError } from '../../fs/atomic.js';
import type { SpecFile, StatusFile, StatusHead } from './files.js';
import {
  encodeStatus, initialVersion, nextVersion, parseStatusHead, STATUS_HEAD_BYTES, toResource,
  migrateSpecFile, validateSpecFile, validateStatusFile,
} from './files.js';
import { deepFreeze, mapLimit, newestFirst, ordinal, readdirSafe, safe, writtenAt } from './helpers.js';
import { KeyedMutex } from './mutex.js';
import { addOrder, readOrder, removeOrder, type OrderIndex } from './order-index.js';
import type { RunPaths } from './paths.js';
import { cacheKey, Layout } from './paths.js';
import { runKeyOf } from '../../../core/ports/run-store.js';

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

/** A DAG's creation index and where it lives. */
interface Order { dir: string; index: OrderIndex }

/** spec.json starts with apiVersion, kind and metadata (name, uid, creationTimestamp, ...): its creation time is in the first bytes. */
const SPEC_HEAD_BYTES = 1024;
const CREATED = /^\{"apiVersion":"[^"]*","kind":"DagRun","metadata":\{[^{}]*?"creationTimestamp":"([^"\\]*)"/;

export class LocalRunStore implements RunStore {
  private readonly layout: Layout;
  private readonly clock: Clock;
  private readonly mutex = new KeyedMutex();
  private readonly specs = new Map<string, SpecFile>();
  /** Highest version this instance wrote: a re-created run starts above it (see initialVersion). */
  private highWater = 0n;

  constructor(opts: LocalRunStoreOptions) {
    this.layout = new Layout(opts.dataDir);
    this.clock = opts.clock ?? { now: () => Date.now() };
  }

  runDir(key: RunKey): string {
    return this.layout.runPaths(key).dir;
  }

  async create(run: DagRunResource): Promise<DagRunResource> {
    const key = runKeyOf(run);
    const p = this.layout.runPaths(key);
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
    try {
      // status.json first, spec.json last: a run dir without spec.json is half-written (list skips it).
      writeFileAtomicSync(p.status, encodeStatus(st));
      await writeFileAtomic(p.spec, JSON.stringify(spec), { mkdir: false });
    } catch (err) {
      await rm(p.dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    addOrder(this.layout.orderDir(key.dagName), spec.metadata.creationTimestamp, key.dagRunId);
    this.specs.delete(cacheKey(key));
    return structuredClone(toResource(spec, st));
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
      try {
        // Through the I/O thread pool: the driver writes behind, while the step it just started runs.
        await writeFileAtomic(p.status, encodeStatus(st), { mkdir: false });
      } catch (err) {
        if (isNotFound(err)) throw new NotFoundError(`run ${ck} not found`, { ...key });
        throw err;
      }
      return toResource(spec, st);
    });
  }

  async list(filter: RunListFilter = {}): Promise<DagRunResource[]> {
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
    const keep = (r: DagRunResource | undefined): r is DagRunResource => r !== undefined && (!filter.rootOnly || !r.spec.parent);
    if (filter.limit !== undefined && filter.limit < found.length) return this.newest(found, filter.limit, keep);
    const runs = (await mapLimit(found, LIST_CONCURRENCY, (f) => this.read(f.p))).filter(keep);
    return runs.sort(newestFirst);
  }

  /**
   * The newest `limit` runs that `keep` takes, in list order. The order comes from each DAG's creation
   * index, else from the creation time at the head of the spec file (which then goes into the index);
   * whole runs are read from the newest down, only until there are enough.
   */
  private async newest(found: Found[], limit: number, keep: (r: DagRunResource | undefined) => r is DagRunResource): Promise<DagRunResource[]> {
    const orders = new Map<string, Order>();
    for (const dagName of new Set(found.map((f) => f.dagName))) {
      const dir = this.layout.orderDir(dagName);
      orders.set(dagName, { dir, index: await readOrder(dir) });
    }
    const stamped = await mapLimit(found, LIST_CONCURRENCY, async (f) => ({ f, at: await this.creationOf(f, orders.get(f.dagName)!) }));
    stamped.sort((a, b) => ordinal(b.at, a.at) || ordinal(b.f.dagRunId, a.f.dagRunId));
    const out: DagRunResource[] = [];
    for (const { f } of stamped) {
      if (out.length >= limit) break;
      const run = await this.read(f.p);
      if (keep(run)) out.push(run);
    }
    return out;
  }

  /** A run's creation time: from its DAG's index, else from its spec file (then put into the index, replacing conflicting entries). */
  private async creationOf(f: Found, order: Order): Promise<string> {
    const indexed = order.index.get(f.dagRunId);
    if (indexed) return indexed;
    const at = await this.createdAt(f.p);
    if (!at) return at;
    if (indexed === null) await removeOrder(order.dir, f.dagRunId);
    addOrder(order.dir, at, f.dagRunId);
    return at;
  }

  /** metadata.creationTimestamp from the first bytes of spec.json (it comes before the big spec); the whole file if not there. */
  private async createdAt(p: RunPaths): Promise<string> {
    const head = await readHead(p.spec, SPEC_HEAD_BYTES);
    if (head === undefined) return '';
    const m = CREATED.exec(head);
    if (m) return m[1]!;
    const spec = await readJson<{ metadata?: { creationTimestamp?: unknown } }>(p.spec);
    return typeof spec?.metadata?.creationTimestamp === 'string' ? spec.metadata.creationTimestamp : '';
  }

  async delete(key: RunKey): Promise<void> {
    const p = this.layout.runPaths(key);
    const ck = cacheKey(key);
    await this.mutex.run(ck, async () => {
      this.specs.delete(ck);
      // Its entry in the creation index is named by it (a spec that cannot be read: every entry of the id).
      const createdAt = await this.createdAt(p).catch(() => '');
      // maxRetries: another process may be renaming a file into the dir while we empty it.
      await rm(p.dir, { recursive: true, force: true, maxRetries: 3 });
      await removeOrder(this.layout.orderDir(key.dagName), key.dagRunId, createdAt || undefined);
    });
  }

  async requestStop(key: RunKey): Promise<void> {
    const p = this.layout.runPaths(key);
    try {
      await access(p.spec);
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
    return existsSync(this.layout.runPaths(key).stop);
  }


  private issue(rv: string): string {
    const v = BigInt(rv);
    if (v > this.highWater) this.highWater = v;
    return rv;
  }

  /** Both files merged; undefined when absent or half-written (either file missing). */
  private async read(p: RunPaths): Promise<DagRunResource | undefined> {
    const spec = await readJson<unknown>(p.spec);
    if (spec === undefined) return undefined;
    if (!validateSpecFile(spec)) throw new CorruptFileError(p.spec, new Error('not a DagRun spec file'));
    const st = await readJson<unknown>(p.status);
    if (st === undefined) return undefined;
    if (!validateStatusFile(st)) throw new CorruptFileError(p.status, new Error('not a DagRun status file'));
    return toResource(migrateSpecFile(spec), st);
  }

  /** Version and uid from the first bytes of status.json; the whole file only if the head is unusual. */
  private async readStatusHead(p: RunPaths): Promise<StatusHead | undefined> {
    const head = readHeadSync(p.status, STATUS_HEAD_BYTES);
    if (head === undefined) return undefined;
    const parsed = parseStatusHead(head);
    if (parsed) return parsed;
    const st = await readJson<unknown>(p.status);
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
    const spec = await readJson<unknown>(p.spec);
    if (spec === undefined) throw new NotFoundError(`run ${ck} not found`);
    if (!validateSpecFile(spec)) throw new CorruptFileError(p.spec, new Error('not a DagRun spec file'));
    const frozen = deepFreeze(migrateSpecFile(spec));
    this.specs.set(ck, frozen);
    if (this.specs.size > SPEC_CACHE_MAX) this.specs.delete(this.specs.keys().next().value as string);
    return frozen;
  }
}
