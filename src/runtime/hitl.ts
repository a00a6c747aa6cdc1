/**
 * The `hitl` step type (SPEC 2.6, 3.3): a human approval gate. Running it does nothing but report the
 * step as waiting; decide() then moves the run to waiting (7) and fires the wait handler. The decision
 * arrives later as an approve or reject observation (RunControls), never through this executor.
 */
import type { Launcher, RunningExec } from '../core/ports/executor.js';

const waiting = (): RunningExec => ({ result: Promise.resolve({ exitCode: 0, waiting: true }), signal: () => undefined });

/** After a crash the gate simply waits again: there is no process to adopt, nothing to record. */
export const hitlLauncher: Launcher = {
  recordsStarts: false,
  begun: () => false,
  ensure: async () => waiting(),
};
