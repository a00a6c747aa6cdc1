/**
 * How a step execution ended, from what the entry recorded (its result file) or, when it recorded
 * nothing (killed, out of memory, never started), from the Pod's status. Pure.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { ExecResult } from '../../../core/run/state.js';
import { STEP_CONTAINER } from './pod-spec.js';

/** What the entry writes at the end (src/entry/files.go Result). */
export interface EntryResult {
  exitCode: number;
  signal?: string;
  timedOut?: boolean;
  error?: string;
  startedAt?: string;
  finishedAt?: string;
}

export function isEntryResult(v: unknown): v is EntryResult {
  return typeof v === 'object' && v !== null && Number.isInteger((v as EntryResult).exitCode);
}

/** The execution's result as the engine reads it, like the local launcher's. */
export function fromEntry(r: EntryResult): ExecResult {
  if (r.timedOut) return { exitCode: r.exitCode || 124, timedOut: true, error: r.error ?? 'step timed out' };
  if (r.exitCode === 0) return { exitCode: 0 };
  if (r.signal) return { exitCode: r.exitCode, signal: r.signal, error: r.error ?? `signal: ${r.signal}` };
  return { exitCode: r.exitCode, error: r.error ?? `exit status ${r.exitCode}` };
}

/** The outcome a finished Pod shows, or undefined while it has not finished. */
export function podOutcome(pod: V1Pod): EntryResult | undefined {
  const phase = pod.status?.phase;
  const state = pod.status?.containerStatuses?.find((c) => c.name === STEP_CONTAINER)?.state;
  const t = state?.terminated;
  if (phase !== 'Succeeded' && phase !== 'Failed' && !t) return undefined;
  if (pod.status?.reason === 'DeadlineExceeded') return { exitCode: 124, timedOut: true, error: `the step's Pod exceeded its deadline: ${pod.status.message ?? ''}`.trim() };
  if (!t) return { exitCode: 1, error: `the step's Pod failed: ${pod.status?.reason ?? 'unknown reason'}${pod.status?.message ? `: ${pod.status.message}` : ''}` };
  if (t.exitCode === 0) return { exitCode: 0 };
  const why = t.reason === 'OOMKilled' ? 'the step ran out of memory (OOMKilled)' : t.reason && t.reason !== 'Error' ? `${t.reason}${t.message ? `: ${t.message}` : ''}` : `exit status ${t.exitCode}`;
  return { exitCode: t.exitCode, error: why };
}

/** Why a Pod that has not started waits (unschedulable, an image that cannot be pulled), for people. */
export function podWaitReason(pod: V1Pod): string | undefined {
  const sched = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (sched?.status === 'False' && sched.reason) return `${sched.reason}: ${sched.message ?? ''}`.trim();
  const w = pod.status?.containerStatuses?.find((c) => c.name === STEP_CONTAINER)?.state?.waiting;
  if (w?.reason && w.reason !== 'ContainerCreating' && w.reason !== 'PodInitializing') return `${w.reason}: ${w.message ?? ''}`.trim();
  return undefined;
}
