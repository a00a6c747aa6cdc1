/**
 * Ownership on local disk: a pid lock, `<runDir>/owner`, holding the owner's pid, the process's start
 * time (a pid reused after a crash is not the owner), its host and a random per-start instance id (a
 * restarted container can get the same pid). Written whole to a temporary file, then linked into place
 * (link(2) fails when the lock exists: no reader ever sees it half-written); an owner that is gone is
 * replaced under a `owner.takeover` directory (mkdir is atomic), so two processes taking over the same
 * run cannot both win. An owner on another host is never presumed gone.
 */
import { closeSync, constants, fstatSync, linkSync, mkdirSync, openSync, readSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OwnerState, Ownership } from '../../../core/ports/ownership.js';
import type { RunKey } from '../../../core/ports/run-store.js';
import { isNotFound } from '../../fs/atomic.js';
import { Layout } from './paths.js';

export interface ProcessIdentity {
  pid: number;
  /** Start time of the process in clock ticks since boot (undefined where /proc is not available). */
  startTicks?: string | undefined;
  host: string;
  instance: string;
}

interface OwnerRecord extends ProcessIdentity { since: string }

/** A takeover left half-done by a process that died in it is cleared after this long. */
const STALE_TAKEOVER_MS = 10_000;

/** Far above a record's size. */
const RECORD_MAX_BYTES = 4096;
const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The lock's text, opened without following a link or blocking on a FIFO (the run directory is the
 * step's to write in); 'planted' for anything but a regular file. A second name is allowed: the lock is
 * linked into place from its temporary file, which is unlinked just after.
 */
function readRecord(file: string): string | undefined | 'planted' {
  let fd: number;
  try {
    fd = openSync(file, READ);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    if (['ELOOP', 'ENXIO', 'EISDIR'].includes((e as NodeJS.ErrnoException).code ?? '')) return 'planted';
    throw e;
  }
  try {
    if (!fstatSync(fd).isFile()) return 'planted';
    const buf = Buffer.allocUnsafe(RECORD_MAX_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}

export class LocalOwnership implements Ownership {
  private readonly layout: Layout;

  /** `isAlive(pid, startTicks)`: whether that process still runs (liveness of the runtime). */
  constructor(private readonly opts: { dataDir: string; self: ProcessIdentity; isAlive: (pid: number, startTicks?: string) => boolean; now?: () => number }) {
    this.layout = new Layout(opts.dataDir);
  }

  async acquire(key: RunKey): Promise<boolean> {
    const file = this.file(key);
    for (let tries = 0; tries < 3; tries++) {
      if (this.create(file)) return true;
      const owner = this.read(file);
      if (owner === undefined) continue; // released meanwhile: create again
      const state = this.stateOf(owner);
      if (state !== 'gone') return state === 'mine';
      return this.takeOver(file, owner);
    }
    return false;
  }

  async release(key: RunKey): Promise<void> {
    const file = this.file(key);
    if (this.stateOf(this.read(file)) !== 'mine') return;
    try { unlinkSync(file); } catch (e) { if (!isNotFound(e)) throw e; }
  }

  async state(key: RunKey): Promise<OwnerState> {
    return this.stateOf(this.read(this.file(key)));
  }

  async holder(key: RunKey): Promise<string | undefined> {
    const owner = this.read(this.file(key));
    if (owner === 'broken') return 'a process whose record is unreadable';
    return owner && `process ${owner.pid} on ${owner.host}`;
  }

  private file(key: RunKey): string {
    return join(this.layout.runPaths(key).dir, 'owner');
  }

  private record(): string {
    const now = this.opts.now?.() ?? Date.now();
    return JSON.stringify({ ...this.opts.self, since: new Date(now).toISOString() } satisfies OwnerRecord);
  }

  /** The lock itself: true when this call created it (whole: written aside, then linked into place). */
  private create(file: string): boolean {
    const tmp = `${file}.${this.opts.self.instance}.tmp`;
    writeFileSync(tmp, this.record(), { flag: 'wx' }); // O_EXCL: a link planted at the name is not written through
    try {
      linkSync(tmp, file);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    } finally {
      try { unlinkSync(tmp); } catch { /* gone already */ }
    }
  }

  /** undefined when there is no owner (or a record too broken to name one: treated as gone). */
  private read(file: string): OwnerRecord | undefined | 'broken' {
    const text = readRecord(file);
    if (text === undefined) return undefined;
    if (text === 'planted') return 'broken'; // a link or FIFO at the lock's name: no owner can be shown
    try {
      const o = JSON.parse(text) as Partial<OwnerRecord>;
      return typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.instance === 'string' ? o as OwnerRecord : 'broken';
    } catch {
      return 'broken'; // damaged (records are linked in whole): nobody can be shown to hold it
    }
  }

  private stateOf(owner: OwnerRecord | undefined | 'broken'): OwnerState {
    if (owner === undefined) return 'none';
    if (owner === 'broken') return 'gone';
    const self = this.opts.self;
    if (owner.instance === self.instance) return 'mine';
    if (owner.host !== self.host) return 'live';
    if (owner.pid === self.pid) return 'gone'; // our pid, another instance: a restarted container
    return this.opts.isAlive(owner.pid, owner.startTicks) ? 'live' : 'gone';
  }

  /** Replaces a gone owner's record with ours, one taker at a time. */
  private takeOver(file: string, seen: OwnerRecord | undefined | 'broken'): boolean {
    const lock = `${file}.takeover`;
    if (!this.lock(lock)) return false;
    try {
      const now = this.read(file);
      if (JSON.stringify(now) !== JSON.stringify(seen)) return this.stateOf(now) === 'mine';
      const tmp = `${file}.${this.opts.self.instance}.tmp`;
      writeFileSync(tmp, this.record(), { flag: 'wx' });
      renameSync(tmp, file);
      return true;
    } finally {
      try { rmdirSync(lock); } catch { /* gone already */ }
    }
  }

  private lock(dir: string): boolean {
    try {
      mkdirSync(dir);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const since = statSync(dir, { throwIfNoEntry: false })?.mtimeMs;
    if (since === undefined) return false; // the other taker just finished
    if ((this.opts.now?.() ?? Date.now()) - since > STALE_TAKEOVER_MS) { try { rmdirSync(dir); } catch { /* another cleared it */ } }
    return false;
  }
}
