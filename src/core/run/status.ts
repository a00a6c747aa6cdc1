/**
 * Run and node statuses: the integers and labels of SPEC 3.1/3.2, mapped in this one place.
 * waiting (7) and rejected (8) are the integers the reference implementation uses for the approval
 * states the spec leaves unnumbered; node 5 is skipped, run 5 is queued.
 */

export enum RunStatus {
  NotStarted = 0,
  Running = 1,
  Failed = 2,
  Aborted = 3,
  Succeeded = 4,
  Queued = 5,
  PartiallySucceeded = 6,
  Waiting = 7,
  Rejected = 8,
}

export enum NodeStatus {
  NotStarted = 0,
  Running = 1,
  Failed = 2,
  Aborted = 3,
  Succeeded = 4,
  Skipped = 5,
  PartiallySucceeded = 6,
  Waiting = 7,
  Rejected = 8,
}

const RUN_LABELS: Record<RunStatus, string> = {
  [RunStatus.NotStarted]: 'not_started',
  [RunStatus.Running]: 'running',
  [RunStatus.Failed]: 'failed',
  [RunStatus.Aborted]: 'aborted',
  [RunStatus.Succeeded]: 'succeeded',
  [RunStatus.Queued]: 'queued',
  [RunStatus.PartiallySucceeded]: 'partially_succeeded',
  [RunStatus.Waiting]: 'waiting',
  [RunStatus.Rejected]: 'rejected',
};

const NODE_LABELS: Record<NodeStatus, string> = {
  [NodeStatus.NotStarted]: 'not_started',
  [NodeStatus.Running]: 'running',
  [NodeStatus.Failed]: 'failed',
  [NodeStatus.Aborted]: 'aborted',
  [NodeStatus.Succeeded]: 'succeeded',
  [NodeStatus.Skipped]: 'skipped',
  [NodeStatus.PartiallySucceeded]: 'partially_succeeded',
  [NodeStatus.Waiting]: 'waiting',
  [NodeStatus.Rejected]: 'rejected',
};

export const runStatusLabel = (s: RunStatus): string => RUN_LABELS[s] ?? 'unknown';
export const nodeStatusLabel = (s: NodeStatus): string => NODE_LABELS[s] ?? 'unknown';

/** A run that will not change any more by itself. */
export const isRunTerminal = (s: RunStatus): boolean =>
  s === RunStatus.Failed || s === RunStatus.Aborted || s === RunStatus.Succeeded ||
  s === RunStatus.PartiallySucceeded || s === RunStatus.Rejected;

/** A run that occupies a slot: running or paused for approval. */
export const isRunActive = (s: RunStatus): boolean => s === RunStatus.Running || s === RunStatus.Waiting;

export const isRunSuccess = (s: RunStatus): boolean => s === RunStatus.Succeeded || s === RunStatus.PartiallySucceeded;

/** A node that has reached its final state for this attempt of the run. */
export const isNodeDone = (s: NodeStatus): boolean =>
  s === NodeStatus.Failed || s === NodeStatus.Aborted || s === NodeStatus.Succeeded ||
  s === NodeStatus.Skipped || s === NodeStatus.PartiallySucceeded || s === NodeStatus.Rejected;

export const isNodeSuccess = (s: NodeStatus): boolean =>
  s === NodeStatus.Succeeded || s === NodeStatus.PartiallySucceeded;

/** Label used in outputs.json metadata (SPEC 2.7: succeeded, failed or aborted). */
export function outputsStatusLabel(s: RunStatus): string {
  if (isRunSuccess(s)) return 'succeeded';
  if (s === RunStatus.Aborted) return 'aborted';
  return 'failed';
}
