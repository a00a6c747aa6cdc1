/**
 * Run and step statuses as the UI shows them: one place for which are active, which are final, and the
 * tone (colour) of each label. Labels come from the API (SPEC 3.1, 3.2 plus waiting and rejected).
 */
import type { components } from '../api/schema.generated';

export type RunStatusLabel = components['schemas']['RunStatusLabel'];
export type NodeStatusLabel = components['schemas']['NodeStatusLabel'];
export type StatusLabel = RunStatusLabel | NodeStatusLabel;

/** A run in one of these may still change by itself: keep its page live. */
const ACTIVE: ReadonlySet<StatusLabel> = new Set(['running', 'queued', 'waiting']);

export function isActive(label: StatusLabel | undefined): boolean {
  return label !== undefined && ACTIVE.has(label);
}

/**
 * A run that may still change by itself: active, or created and not started yet (a run is saved as
 * not_started before its first step starts). A DAG that never ran has a summary with no run id.
 */
export function isLive(run: { dagRunId: string; statusLabel: RunStatusLabel } | null | undefined): boolean {
  return Boolean(run?.dagRunId) && (isActive(run?.statusLabel) || run?.statusLabel === 'not_started');
}

/** A run that has ended (what Retry needs: SPEC 4.5 answers already_running otherwise). */
const FINISHED: ReadonlySet<StatusLabel> = new Set(['succeeded', 'failed', 'aborted', 'partially_succeeded', 'rejected']);

export function isFinished(label: StatusLabel | undefined): boolean {
  return label !== undefined && FINISHED.has(label);
}

/** The colour family of a status; CSS has one class per tone (`tone-ok`...). */
export type Tone = 'ok' | 'fail' | 'run' | 'wait' | 'idle' | 'skip' | 'warn';

const TONES: Record<StatusLabel, Tone> = {
  not_started: 'idle',
  running: 'run',
  failed: 'fail',
  aborted: 'warn',
  succeeded: 'ok',
  queued: 'wait',
  partially_succeeded: 'warn',
  waiting: 'wait',
  rejected: 'fail',
  skipped: 'skip',
};

export function toneOf(label: StatusLabel | undefined): Tone {
  return label ? TONES[label] : 'idle';
}

/** "partially_succeeded" -> "partially succeeded". */
export function labelText(label: StatusLabel | undefined): string {
  return (label ?? 'not_started').replace(/_/g, ' ');
}

/** SPEC 3.1 run statuses: code and label, for filters. */
export const RUN_STATUSES: readonly { code: number; label: RunStatusLabel }[] = [
  { code: 0, label: 'not_started' }, { code: 1, label: 'running' }, { code: 2, label: 'failed' }, { code: 3, label: 'aborted' },
  { code: 4, label: 'succeeded' }, { code: 5, label: 'queued' }, { code: 6, label: 'partially_succeeded' }, { code: 7, label: 'waiting' },
  { code: 8, label: 'rejected' },
];

const NODE_LABELS: readonly StatusLabel[] = ['not_started', 'running', 'failed', 'aborted', 'succeeded', 'skipped', 'partially_succeeded', 'waiting', 'rejected'];

/** SPEC 3.2 step status code as its label (an unknown code reads as not started). */
export function nodeLabelOf(code: number): StatusLabel {
  return NODE_LABELS[code] ?? 'not_started';
}
