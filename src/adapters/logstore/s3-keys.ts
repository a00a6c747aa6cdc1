/**
 * The S3 log store's object keys (ADR 0011). This module is the one place that lays them out:
 *   <prefix>/runs/<dagRunName>/<attempt>/run.log/<chunk>...                    the run log
 *                                       /logs/<execName>.out/<chunk>...       stdout (.err stderr, .log merged)
 *                                       /logs/<execName>.results/<exec>.json  a step Pod's result (operator)
 *                                       /outputs.json
 * A log is a key prefix; its text is its chunk objects concatenated in key order.
 *
 * No user string reaches a key as written: DAG names, run ids, node names and attempt ids go through the
 * naming functions of core (lowercase slugs plus a hash of the exact identity), so a key never holds `/`,
 * `..`, control characters or anything S3 or a console would treat specially, and two identities that
 * read alike never share a key.
 */
import { dagRunName, execName, identityHash, slug, type ExecIdentity } from '../../core/naming.js';
import type { LogRef } from '../../core/ports/log-store.js';
import type { RunKey } from '../../core/ports/run-store.js';

/** `a/b/` from ` /a/b// `: the prefix every key starts with ('' for the bucket's root). */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.trim().replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/** An attempt id as a key segment: its slug, then a hash of the exact id. */
export function attemptSegment(attemptId: string): string {
  return [slug(attemptId, 36), identityHash(['attempt', attemptId])].filter(Boolean).join('-');
}

/** `<prefix>runs/<dagRunName>/<attempt>/`: everything of one attempt of a run. */
export function attemptKey(prefix: string, run: RunKey, attemptId: string): string {
  return `${prefix}runs/${dagRunName(run.dagName, run.dagRunId)}/${attemptSegment(attemptId)}/`;
}

export function outputsKey(prefix: string, run: RunKey, attemptId: string): string {
  return `${attemptKey(prefix, run, attemptId)}outputs.json`;
}

/**
 * What every key of a step's executions starts with: their logs, and their results when they ran in Pods
 * (a step Pod may write under it, and nowhere else). A step's retries and repeats share one log, so the
 * execution number is left out of the name (execName of attempt 0); items and probes keep their own.
 */
export function execKeyPrefix(prefix: string, exec: ExecIdentity): string {
  return `${attemptKey(prefix, exec, exec.attemptId)}logs/${execName({ ...exec, attempt: 0 })}.`;
}

/** The prefix of a log's chunks, ending in `/`. */
export function logKey(prefix: string, ref: LogRef): string {
  if (ref.kind === 'run') return `${attemptKey(prefix, ref.run, ref.attemptId)}run.log/`;
  const ext = ref.merged ? 'log' : ref.stream === 'stdout' ? 'out' : 'err';
  return `${execKeyPrefix(prefix, ref.exec)}${ext}/`;
}

/** The result a step Pod's entry wrote of one execution. */
export function resultKey(prefix: string, exec: ExecIdentity): string {
  return `${execKeyPrefix(prefix, exec)}results/${execName(exec)}.json`;
}

const STAMP_DIGITS = 13;
const SEQ_DIGITS = 10;

/**
 * A chunk's name: `<ms since epoch, 13 digits>-<writer's sequence, 10 digits>-<writer id>`. Keys list in
 * byte order, so chunks list in the order their writer stamped them; see S3ChunkWriter for why stamps
 * of one log increase across writers too.
 */
export function chunkName(stamp: number, seq: number, writer: string): string {
  return `${String(stamp).padStart(STAMP_DIGITS, '0')}-${String(seq).padStart(SEQ_DIGITS, '0')}-${writer}`;
}

/** The stamp of a chunk key written by chunkName (0 for a key of another form). */
export function chunkStamp(key: string): number {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const stamp = Number(name.slice(0, STAMP_DIGITS));
  return /^\d{13}-/.test(name) && Number.isSafeInteger(stamp) ? stamp : 0;
}
