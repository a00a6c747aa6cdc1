/**
 * On-disk layout of the embedded run store, and the one place DAG names and run ids become paths.
 *
 *   <dataDir>/runs/<dagName>/<dagRunId>/spec.json    apiVersion, kind, metadata (no resourceVersion), spec
 *                                       status.json  {"resourceVersion","uid","status"} (rewritten per update)
 *                                       stop         marker: a stop was requested (own file, own writer)
 *                                       ...          logs, outputs, exec records of other adapters
 *   <dataDir>/index/runs.sqlite                       the run index (run-index.ts, ADR 0016)
 * (`<dagName>/.order/`, the per-DAG creation index of earlier versions, is no run directory: ignored.)
 */
import { isAbsolute, join, resolve, sep } from 'node:path';
import { BadRequestError } from '../../../core/errors.js';
import type { RunKey } from '../../../core/ports/run-store.js';
import { isSafeDagName, isValidRunId } from '../../../core/resources.js';

export const SPEC_FILE = 'spec.json';
export const STATUS_FILE = 'status.json';
export const STOP_FILE = 'stop';

export interface RunPaths {
  dir: string;
  spec: string;
  status: string;
  stop: string;
}

export class Layout {
  readonly runsRoot: string;

  constructor(dataDir: string) {
    if (!isAbsolute(dataDir)) throw new Error(`LocalRunStore dataDir must be an absolute path, got ${JSON.stringify(dataDir)}`);
    this.runsRoot = join(resolve(dataDir), 'runs');
  }

  /** Validates a DAG name and returns its directory; BadRequestError for anything unsafe. */
  dagDir(dagName: string): string {
    if (typeof dagName !== 'string' || !isSafeDagName(dagName)) {
      throw new BadRequestError(`invalid DAG name ${JSON.stringify(dagName)}`, { dagName });
    }
    return this.under(join(this.runsRoot, dagName));
  }

  /** Every driver loop asks for the same few runs' paths: validated and joined once (bounded). */
  private readonly memo = new Map<string, RunPaths>();

  runPaths(key: RunKey): RunPaths {
    const ck = `${key.dagName}\0${key.dagRunId}`;
    const hit = this.memo.get(ck);
    if (hit) return hit;
    const paths = this.computeRunPaths(key);
    if (this.memo.size >= 1000) this.memo.clear();
    this.memo.set(ck, paths);
    return paths;
  }

  /** The same, not remembered. */
  computeRunPaths(key: RunKey): RunPaths {
    return this.runPathsIn(this.dagDir(key.dagName), key.dagRunId);
  }

  /**
   * A run's paths under a directory `dagDir` returned (listings, which touch every run once, validate
   * the DAG's name once). A valid run id has no separator and is no dot segment, so the paths are
   * joined as strings: path.join normalises, which cost a listing of 5,000 runs ~0.1 s.
   */
  runPathsIn(dagDir: string, dagRunId: string): RunPaths {
    if (typeof dagRunId !== 'string' || !isValidRunId(dagRunId)) {
      throw new BadRequestError(`invalid dagRunId ${JSON.stringify(dagRunId)}`, { dagRunId });
    }
    const dir = `${dagDir}${sep}${dagRunId}`;
    return { dir, spec: `${dir}${sep}${SPEC_FILE}`, status: `${dir}${sep}${STATUS_FILE}`, stop: `${dir}${sep}${STOP_FILE}` };
  }

  /** Belt and braces behind the name patterns: nothing may resolve outside runs/. */
  private under(p: string): string {
    const abs = resolve(p);
    if (!abs.startsWith(this.runsRoot + sep)) throw new BadRequestError(`path escapes the data directory: ${p}`);
    return abs;
  }
}

export { runKeyText as cacheKey } from '../../../core/ports/run-store.js';
