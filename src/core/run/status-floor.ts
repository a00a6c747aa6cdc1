/**
 * The least a run's status can weigh: every step (and handler) finished, with its timestamps, counters
 * and a short error, before any captured value or parallel item. A store with a status budget (a
 * DagRun's, near etcd's object limit) cannot run a DAG whose floor is already over it, however small
 * its outputs; validation says so before the first run does.
 */
import type { DagDefinition } from '../spec/types.js';
import { newRunState, type NodeState } from './state.js';
import { NodeStatus, RunStatus } from './status.js';

const TIME = '2026-01-01T00:00:00.000Z';
/** A typical error message of a failed step (`exit status 1`, a signal, a short stderr line). */
const ERROR = 'x'.repeat(64);

export function statusFloorBytes(def: DagDefinition): number {
  const state = newRunState(def);
  const done = (n: NodeState): NodeState => ({ ...n, status: NodeStatus.Failed, startedAt: TIME, finishedAt: TIME, attempt: 1, doneCount: 1, exitCode: 1, error: ERROR });
  const run = { ...state, status: RunStatus.Failed, stage: 'done', startedAt: TIME, finishedAt: TIME, nodes: state.nodes.map(done), handlers: state.handlers.map(done) };
  return Buffer.byteLength(JSON.stringify({ attemptId: 'x'.repeat(28), run }));
}

/** The problem of a DAG whose floor is over `budget` bytes, or undefined. */
export function statusFloorProblem(def: DagDefinition, budget: number): string | undefined {
  const bytes = statusFloorBytes(def);
  if (bytes <= budget) return undefined;
  return `this DAG's ${def.steps.length} steps alone make a run status of about ${bytes} bytes, over the ${budget}-byte limit of a DagRun status `
    + '(etcd caps objects near 1.5 MB): split it into sub-DAGs (each call is a DagRun of its own)';
}
