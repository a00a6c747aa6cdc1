/**
 * RunControls on local disk: one JSON file per request under `<runDir>/controls/`, named by arrival
 * (time, counter, random) so a directory listing gives the order. Written atomically by the API
 * process, read and deleted by the run's driver (possibly another process): each file has one writer
 * and one remover, so no lock is needed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../../core/errors.js';
import type { ControlObservation, ControlRequest, RunControls } from '../../../core/ports/run-controls.js';
import type { RunKey } from '../../../core/ports/run-store.js';
import { isNotFound, readJson, writeFileAtomic } from '../../fs/atomic.js';
import { Layout } from './paths.js';

export const CONTROLS_DIR = 'controls';
const ID = /^[0-9a-z]{1,40}-[0-9a-z]{1,12}-[0-9a-f]{8}$/;
let counter = 0;

export class LocalRunControls implements RunControls {
  private readonly layout: Layout;
  private readonly now: () => number;

  constructor(opts: { dataDir: string; now?: () => number }) {
    this.layout = new Layout(opts.dataDir);
    this.now = opts.now ?? (() => Date.now());
  }

  private dir(key: RunKey): string {
    return join(this.layout.runPaths(key).dir, CONTROLS_DIR);
  }

  async push(key: RunKey, observation: ControlObservation): Promise<ControlRequest> {
    const p = this.layout.runPaths(key);
    if (!existsSync(p.spec)) throw new NotFoundError(`dag-run ${key.dagRunId} of DAG ${key.dagName} not found`, { ...key });
    const id = `${this.now().toString(36).padStart(10, '0')}-${(counter++).toString(36)}-${randomBytes(4).toString('hex')}`;
    const req: ControlRequest = { id, observation };
    await writeFileAtomic(join(this.dir(key), `${id}.json`), JSON.stringify(req));
    return req;
  }

  /** Read whenever a driver is woken: a synchronous existence check first, the listing only when needed. */
  async pending(key: RunKey): Promise<ControlRequest[]> {
    const dir = this.dir(key);
    if (!existsSync(dir)) return [];
    let names: string[];
    try {
      names = (await readdir(dir)).filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -5))).sort();
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    const out: ControlRequest[] = [];
    for (const n of names) {
      const req = await readJson<ControlRequest>(join(dir, n)).catch(() => undefined);
      if (req && typeof req === 'object' && req.observation && req.id === n.slice(0, -5)) out.push(req);
    }
    return out;
  }

  async ack(key: RunKey, ids: string[]): Promise<void> {
    const dir = this.dir(key);
    await Promise.all(ids.filter((id) => ID.test(id)).map((id) => rm(join(dir, `${id}.json`), { force: true })));
  }
}
