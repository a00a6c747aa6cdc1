/**
 * On-disk layout of the embedded run store, and the one place DAG names and run ids become paths.
 *
 *   <dataDir>/runs/<dagName>/<dagRunId>/spec.json    apiVersion, kind, metadata (no resourceVersion), spec
 *                                       status.json  {"resourceVersion","uid","status"} (rewritten per update)
 *                                       stop         marker: a stop was requested (own file, own writer)
 *                                       ...          logs, outputs, exec records of other adapters
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

  /** The same, not remembered: for listings, which touch every run once. */
  computeRunPaths(key: RunKey): RunPaths {
    const dagDir = this.dagDir(key.dagName);
    if (typeof key.dagRunId !== 'string' || !isValidRunId(key.dagRunId)) {
      throw new BadRequestError(`invalid dagRunId ${JSON.stringify(key.dagRunId)}`, { dagRunId: key.dagRunId });
    }
    const dir = this.under(join(dagDir, key.dagRunId));
    return { dir, spec: join(dir, SPEC_FILE), status: join(dir, STATUS_FILE), stop: join(dir, STOP_FILE) };
  }

  /** Belt and braces behind the name patterns: nothing may resolve outside runs/. */
  private under(p: string): string {
    const abs = resolve(p);
    if (!abs.startsWith(this.runsRoot + sep)) throw new BadRequestError(`path escapes the data directory: ${p}`);
    return abs;
  }
}

export const cacheKey = (key: RunKey): string => `${key.dagName}/${key.dagRunId}`;
