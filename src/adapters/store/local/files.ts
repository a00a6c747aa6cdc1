/**
 * The persisted encodings of spec.json and status.json (changing them needs a migration).
 *
 * status.json is written as `{"resourceVersion":"<n>","uid":"<uuid>","status":{...}}` with no
 * indentation, keys in that order, so the compare-and-swap check can read the version and uid from
 * the first bytes of a ~100 KB file instead of parsing all of it (see parseStatusHead).
 */
import type { DagRunResource, DagRunSpec, DagRunStatus, ObjectMeta } from '../../../core/resources.js';
import type { API_VERSION } from '../../../core/resources.js';
import { dagRunMetadata } from '../../../core/naming.js';

export type StoredMeta = Omit<ObjectMeta, 'resourceVersion'>;

export interface SpecFile {
  apiVersion: typeof API_VERSION;
  kind: 'DagRun';
  metadata: StoredMeta;
  spec: DagRunSpec;
}

export interface StatusFile {
  resourceVersion: string;
  /** The uid of the run this status belongs to: detects a delete + re-create behind a cache. */
  uid: string;
  status: DagRunStatus;
}

/** Enough bytes for the version (<= 20 digits) and a UUID with their keys. */
export const STATUS_HEAD_BYTES = 128;
const HEAD = /^\{"resourceVersion":"(\d+)","uid":"([0-9a-fA-F-]{1,64})",/;

export interface StatusHead {
  resourceVersion: string;
  uid: string;
}

export function encodeStatus(s: StatusFile): string {
  // Literal key order matters to parseStatusHead.
  return JSON.stringify({ resourceVersion: s.resourceVersion, uid: s.uid, status: s.status });
}

/** undefined when the head does not match the expected encoding (the caller parses the whole file). */
export function parseStatusHead(head: string): StatusHead | undefined {
  const m = HEAD.exec(head);
  return m ? { resourceVersion: m[1]!, uid: m[2]! } : undefined;
}

export function nextVersion(rv: string): string {
  return (BigInt(rv) + 1n).toString();
}

/**
 * The first version of a new run: the creation time in microseconds, and above every version this
 * instance issued, so a run deleted and re-created under the same key does not reuse the old run's
 * versions and a stale writer conflicts (Kubernetes gets this from its global resourceVersion).
 * Across processes this holds unless the old run saw more than 1000 updates per elapsed ms.
 */
export function initialVersion(nowMs: number, highWater: bigint): string {
  const t = BigInt(Math.floor(nowMs)) * 1000n;
  return (t > highWater ? t : highWater + 1n).toString();
}

export function toResource(spec: SpecFile, st: StatusFile): DagRunResource {
  return {
    apiVersion: spec.apiVersion,
    kind: spec.kind,
    metadata: { ...spec.metadata, resourceVersion: st.resourceVersion },
    spec: spec.spec,
    status: st.status,
  };
}

export function validateSpecFile(v: unknown): v is SpecFile {
  const o = v as Partial<SpecFile> | null;
  return !!o && typeof o === 'object' && o.kind === 'DagRun' && !!o.metadata && !!o.spec;
}

export function validateStatusFile(v: unknown): v is StatusFile {
  const o = v as Partial<StatusFile> | null;
  return !!o && typeof o === 'object' && typeof o.resourceVersion === 'string' && /^\d+$/.test(o.resourceVersion)
    && typeof o.uid === 'string' && !!o.status && typeof o.status === 'object';
}

/**
 * Runs written before object names were Kubernetes-valid (`<dag>.<runId>`, one label) get the names of
 * core/naming on read: the same as a run created now. Nothing is rewritten; the next create of the
 * same key would write the new form anyway.
 */
export function migrateSpecFile(spec: SpecFile): SpecFile {
  const named = dagRunMetadata({ dagName: spec.spec.dagName, dagRunId: spec.spec.dagRunId }, spec.spec.root, spec.spec.parent);
  if (spec.metadata.name === named.name) return spec;
  return {
    ...spec,
    metadata: {
      ...spec.metadata, name: named.name,
      labels: { ...spec.metadata.labels, ...named.labels }, annotations: { ...spec.metadata.annotations, ...named.annotations },
    },
  };
}
