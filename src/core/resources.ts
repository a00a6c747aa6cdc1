/**
 * The two Kubernetes-shaped resources every backend stores (ARCHITECTURE "The resource model").
 * The embedded store is "the Kubernetes API on local disk": same shapes, same optimistic concurrency.
 */
import type { DagDefinition } from './spec/types.js';
import type { RunState } from './run/state.js';

export const API_VERSION = 'svc.io/v1alpha1';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  /** Opaque; changes on every write; compare-and-swap token. */
  resourceVersion: string;
  creationTimestamp: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface DagResource {
  apiVersion: typeof API_VERSION;
  kind: 'Dag';
  metadata: ObjectMeta;
  spec: { definition: DagDefinition; localDags: Record<string, DagDefinition>; source: string };
  status: { suspended: boolean; errors: string[] };
}

export type RunTrigger = 'manual' | 'schedule' | 'webhook' | 'api' | 'retry' | 'subdag';

export interface RunRef {
  name: string;
  dagRunId: string;
}

export interface DagRunSpec {
  dagName: string;
  dagRunId: string;
  /** Snapshot of the resolved definition at start. */
  definition: DagDefinition;
  /** Local sub-DAGs of the file (documents 2..n), by name. */
  localDags: Record<string, DagDefinition>;
  /** Params as given at start (string form; raw JSON kept verbatim). */
  params: string;
  trigger: RunTrigger;
  queue?: string;
  /** Absolute path of the DAG file, when it came from one. */
  sourceFile?: string;
  /** Resolved absolute working directory. */
  workingDir: string;
  parent?: RunRef;
  root: RunRef;
  /** Extra built-in variables (WEBHOOK_PAYLOAD, ...). */
  extraEnv?: Record<string, string>;
}

export interface DagRunStatus {
  attemptId: string;
  queuedAt: string;
  /** The run state decide() advances. */
  run: RunState;
}

export interface DagRunResource {
  apiVersion: typeof API_VERSION;
  kind: 'DagRun';
  metadata: ObjectMeta;
  spec: DagRunSpec;
  status: DagRunStatus;
}

/** Run ids and DAG names travel into file paths and object names: this is the one check for both. */
export const RUN_ID_PATTERN = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,63}$/;
export const isValidRunId = (id: string): boolean => RUN_ID_PATTERN.test(id) && !id.includes('..');
export const DAG_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,40}$/;
export const isSafeDagName = (n: string): boolean => DAG_NAME_PATTERN.test(n) && n !== '.' && n !== '..';
