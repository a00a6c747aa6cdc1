/** The step types that run in this process, by type (SPEC 2.6): each a runner made a Launcher. */
import type { Launcher } from '../../core/ports/executor.js';
import type { LogStore } from '../../core/ports/log-store.js';
import type { StepType } from '../../core/spec/types.js';
import { inProcessLauncher } from './in-process.js';
import type { StepRunner } from './runner.js';
import { runHttp } from './http.js';
import { runJq } from './jq.js';

export const STEP_RUNNERS: Partial<Record<StepType, StepRunner>> = {
  http: runHttp,
  jq: runJq,
};

export function inProcessLaunchers(logs: LogStore, runners = STEP_RUNNERS): Partial<Record<StepType, Launcher>> {
  return Object.fromEntries(Object.entries(runners).map(([type, run]) => [type, inProcessLauncher(run, logs)]));
}
