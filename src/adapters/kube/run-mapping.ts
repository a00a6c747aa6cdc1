/**
 * DagRunResource <-> the DagRun custom resource (crds.ts). Pure.
 *
 * What the custom resource holds beyond the port's resource, and why:
 * - spec.stopRequested: the stop request (RunStore.requestStop), outside the status the driver owns;
 * - spec.controls: the approval requests waiting for the driver (RunControls, run-controls.ts);
 * - status.phase and status.progress: the printer columns of `kubectl get dagruns`, derived from
 *   status.run on every status write;
 * - status.writtenAt: the time of the last status write, to the millisecond
 *   (RunListFilter.writtenBefore: managedFields times have whole seconds only);
 * - the annotation CREATED_AT_ANNOTATION: the creationTimestamp the caller gave (the API server
 *   always sets metadata.creationTimestamp itself, and runs are listed by the caller's time);
 * - status.run.valueRefs: captured values kept once (status-values.ts).
 * All of these are stripped when reading back, so a run reads back as it was written.
 */
import { BadRequestError, StatusTooLargeError } from '../../core/errors.js';
import { dagRunMetadata, dagRunName } from '../../core/naming.js';
import type { ControlRequest } from '../../core/ports/run-controls.js';
import type { RunKey } from '../../core/ports/run-store.js';
import { API_VERSION, isSafeDagName, isValidRunId, type DagRunResource, type DagRunSpec, type DagRunStatus } from '../../core/resources.js';
import { isNodeDone, runStatusLabel } from '../../core/run/status.js';
import type { KubeObject } from './client.js';
import { compactValues, expandValues } from './status-values.js';

export const CREATED_AT_ANNOTATION = 'svc.io/creation-timestamp';

/** Object budget: etcd refuses requests near 1.5 MB; the spec and metadata need their share too. */
export const DEFAULT_MAX_STATUS_BYTES = 1024 * 1024;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

/** The status as stored: the port's status plus the derived fields. */
export interface StoredStatus extends DagRunStatus {
  phase?: string;
  progress?: string;
  writtenAt?: string;
  conditions?: Condition[];
  /** A run request's answer: the DagRun svc started from it. */
  startedRun?: string;
}

export interface DagRunObject extends KubeObject {
  spec?: DagRunSpec & { stopRequested?: boolean; controls?: ControlRequest[]; dag?: string };
  status?: StoredStatus;
}

/** A DagRun created with kubectl that names a Dag to run (spec.dag) and that svc has not answered yet. */
export interface RunRequest {
  name: string;
  uid: string;
  dag: string;
  params: string;
}

export function runRequestOf(o: DagRunObject): RunRequest | undefined {
  const dag = o.spec?.dag;
  if (typeof dag !== 'string' || isComplete(o) || o.status?.startedRun || o.status?.phase === 'failed') return undefined;
  return { name: o.metadata.name, uid: o.metadata.uid ?? '', dag, params: typeof o.spec?.params === 'string' ? o.spec.params : '' };
}

/** The object name of a run, after the one check of run ids and DAG names (BadRequestError). */
export function objectName(k: RunKey): string {
  checkDagName(k.dagName);
  if (!isValidRunId(k.dagRunId)) throw new BadRequestError(`invalid dag-run id ${JSON.stringify(k.dagRunId)}`, { dagRunId: k.dagRunId });
  return dagRunName(k.dagName, k.dagRunId);
}

export function checkDagName(dagName: string): void {
  if (!isSafeDagName(dagName)) throw new BadRequestError(`invalid DAG name ${JSON.stringify(dagName)}`, { dagName });
}

/** "done/total" over the run's step nodes. */
export function progressOf(status: DagRunStatus): string {
  const nodes = status.run.nodes ?? [];
  return `${nodes.filter((n) => isNodeDone(n.status)).length}/${nodes.length}`;
}

/** The status to store, stamped with the write time; BadRequestError when its JSON is over the budget. */
export function storedStatus(key: RunKey, status: DagRunStatus, now: number, maxBytes: number): StoredStatus {
  const stored: StoredStatus = {
    ...status,
    run: compactValues(status.run),
    phase: runStatusLabel(status.run.status),
    progress: progressOf(status),
    writtenAt: new Date(now).toISOString(),
  };
  const bytes = Buffer.byteLength(JSON.stringify(stored));
  if (bytes > maxBytes) {
    throw new StatusTooLargeError(
      `the status of run ${key.dagName}/${key.dagRunId} is ${bytes} bytes of JSON, over the ${maxBytes}-byte limit of a DagRun status `
      + '(etcd caps objects near 1.5 MB): keep logs and large outputs in the log store', { ...key, bytes, limit: maxBytes });
  }
  return stored;
}

/**
 * The spec's share of the object budget: the definition snapshot, params and extra variables (a webhook
 * payload) must leave room for the status (DEFAULT_MAX_STATUS_BYTES) under etcd's cap near 1.5 MB.
 */
export const MAX_SPEC_BYTES = 384 * 1024;

/** The object create() sends: naming metadata always from the run's identity, status left to replaceStatus. */
export function newObject(run: DagRunResource, owner?: { name: string; uid: string }): DagRunObject {
  const bytes = Buffer.byteLength(JSON.stringify(run.spec));
  if (bytes > MAX_SPEC_BYTES) {
    const { dagName, dagRunId } = run.spec;
    throw new BadRequestError(
      `the run ${dagName}/${dagRunId} is ${bytes} bytes of JSON (definition, params, payload), over the ${MAX_SPEC_BYTES}-byte limit of a DagRun spec: `
      + 'pass large inputs by reference (a file, a URL), not as params or a webhook payload', { dagName, dagRunId, bytes, limit: MAX_SPEC_BYTES });
  }
  const named = dagRunMetadata(run.spec, run.spec.root, run.spec.parent);
  const given = run.metadata.creationTimestamp;
  return {
    apiVersion: API_VERSION,
    kind: 'DagRun',
    metadata: {
      name: named.name,
      labels: { ...run.metadata.labels, ...named.labels },
      annotations: { ...run.metadata.annotations, ...named.annotations, ...(given ? { [CREATED_AT_ANNOTATION]: given } : {}) },
      // A sub-DAG run belongs to its parent: deleting the parent deletes it (and its Pods).
      ...(owner ? { ownerReferences: [{ apiVersion: API_VERSION, kind: 'DagRun', name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: false }] } : {}),
    },
    spec: run.spec,
  };
}

/** The body of a status-subresource write: compare-and-swap on resourceVersion (the API requires one). */
export function statusObject(name: string, resourceVersion: string, status: StoredStatus): DagRunObject {
  return { apiVersion: API_VERSION, kind: 'DagRun', metadata: { name, resourceVersion }, status };
}

/** Half-written (created, status not yet written) objects have no status.run: not a run yet. */
export const isComplete = (o: DagRunObject): boolean => o.spec !== undefined && o.status?.run !== undefined;

/** The creation time runs are ordered by: the caller's, else the API server's. */
export const createdAt = (o: KubeObject): string =>
  o.metadata.annotations?.[CREATED_AT_ANNOTATION] ?? o.metadata.creationTimestamp ?? '';

/**
 * When the status was last written (ms): status.writtenAt, else (an object svc did not write) the
 * latest managedFields time, whole seconds, else the creation time.
 */
export function writtenAt(o: DagRunObject): number {
  const stamp = o.status?.writtenAt;
  if (stamp) return Date.parse(stamp);
  const times = (o.metadata.managedFields ?? []).map((f) => Date.parse(f.time ?? '')).filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : Date.parse(o.metadata.creationTimestamp ?? '');
}

/** The port's resource, a deep copy (objects may be shared with the watch cache). */
export function toRun(o: DagRunObject): DagRunResource {
  const { [CREATED_AT_ANNOTATION]: _given, ...annotations } = o.metadata.annotations ?? {};
  const { stopRequested: _stop, controls: _controls, ...spec } = o.spec!;
  const { phase: _p, progress: _q, writtenAt: _w, conditions: _c, ...stored } = o.status!;
  const status = { ...stored, run: expandValues(stored.run) };
  return structuredClone({
    apiVersion: API_VERSION,
    kind: 'DagRun',
    metadata: {
      name: o.metadata.name,
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      uid: o.metadata.uid ?? '',
      resourceVersion: o.metadata.resourceVersion ?? '',
      creationTimestamp: createdAt(o),
      labels: o.metadata.labels ?? {},
      annotations,
    },
    spec,
    status,
  });
}
