/**
 * The log store (ARCHITECTURE "Identities, not paths"): per-execution stdout and stderr, the run log of
 * each attempt, and outputs.json, addressed by identity. Embedded: files under the data directory;
 * Kubernetes: an S3-compatible bucket or a shared volume. Status holds no locations: they follow from
 * the identity.
 */
import type { ExecIdentity } from '../naming.js';
import type { RunKey } from './run-store.js';

export type LogStream = 'stdout' | 'stderr';

/**
 * One log: the run log of an attempt, or one stream of a step's executions (`merged`: both streams in one
 * log). A step's retries and repeats append to the same log, as the reference does (SPEC 2.3's
 * continueOn.output matches all of it); each parallel item has its own.
 */
export type LogRef =
  | { kind: 'run'; run: RunKey; attemptId: string }
  | { kind: 'exec'; exec: ExecIdentity; stream: LogStream; merged: boolean };

/** At most one of head, tail, offset applies (in that order of precedence); limit caps every page. */
export interface LogQuery {
  /** The first N lines. */
  head?: number;
  /** The last N lines. */
  tail?: number;
  /** 1-based first line of the page. */
  offset?: number;
  /** Lines per page (1-10000; default and maximum 10000). */
  limit?: number;
}

/** SPEC 2.8 log page. */
export interface LogPage {
  content: string;
  lineCount: number;
  totalLines: number;
  /** Lines exist beyond the page: after it (head, offset) or before it (tail). */
  hasMore: boolean;
  /** totalLines is extrapolated (very large logs are not scanned to the end). */
  isEstimate: boolean;
}

export const MAX_LOG_LINES = 10_000;

/**
 * - append adds text at the end of a log (creating it), while the run runs;
 * - page and text return undefined for a log that does not exist (yet); both work during and after the run;
 * - text returns at most maxBytes from the start;
 * - locate names where a log lives, for people (SPEC 2.8 node record stdout/stderr, run `log`, the
 *   DAG_RUN_*_FILE variables): a path, a URL; nothing reads it back.
 */
export interface LogStore {
  append(ref: LogRef, text: string): Promise<void>;
  page(ref: LogRef, q: LogQuery): Promise<LogPage | undefined>;
  text(ref: LogRef, maxBytes: number): Promise<string | undefined>;
  locate(ref: LogRef): string;
  writeOutputs(run: RunKey, attemptId: string, body: unknown): Promise<void>;
  readOutputs(run: RunKey, attemptId: string): Promise<unknown | undefined>;
}

/** The log of one stream of an execution (logOutput `merged`: the one log both streams share). */
export const execLog = (exec: ExecIdentity, stream: LogStream, merged: boolean): LogRef => ({ kind: 'exec', exec, stream: merged ? 'stdout' : stream, merged });
export const runLog = (run: RunKey, attemptId: string): LogRef => ({ kind: 'run', run, attemptId });
