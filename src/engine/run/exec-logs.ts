/** Where an execution's logs are, by its identity in the run's current attempt. */
import type { ExecIdentity } from '../../core/naming.js';
import { execLog, type LogRef, type LogStream } from '../../core/ports/log-store.js';
import type { DagRunResource } from '../../core/resources.js';
import type { ExecRef } from '../../core/run/state.js';
import type { StepDefinition } from '../../core/spec/types.js';

/** The identity of one execution of a run's current attempt. */
export function execIdentity(run: DagRunResource, exec: ExecRef): ExecIdentity {
  return { dagName: run.spec.dagName, dagRunId: run.spec.dagRunId, attemptId: run.status.attemptId, node: exec.node, attempt: exec.attempt, item: exec.item };
}

export const isMerged = (run: DagRunResource, step: StepDefinition): boolean => (step.logOutput ?? run.spec.definition.logOutput) === 'merged';

/** The log of one stream of an execution. */
export function execLogOf(run: DagRunResource, step: StepDefinition, exec: ExecRef, stream: LogStream): LogRef {
  return execLog(execIdentity(run, exec), stream, isMerged(run, step));
}

