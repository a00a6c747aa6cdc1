/** The end of a run: outputs.json (SPEC 2.7) and the run log line. */
import type { DagRunResource } from '../../core/resources.js';
import type { EnvEntry } from '../../core/spec/types.js';
import { NodeStatus, outputsStatusLabel, runStatusLabel } from '../../core/run/status.js';
import { maskSecrets } from '../../core/vars/mask.js';
import { maskSecretForms } from '../../core/secret-values.js';
import type { EngineDeps } from '../deps.js';
import type { RunContext } from './run-context.js';
import { runKeyOf } from '../../core/ports/run-store.js';

export interface OutputsBody {
  metadata: { dagName: string; dagRunId: string; attemptId: string; status: string; completedAt: string; params: string };
  outputs: Record<string, string>;
}

export function outputsBody(run: DagRunResource, paramsJson: string, secrets: string[]): OutputsBody {
  const s = run.status.run;
  const outputs = Object.fromEntries(Object.entries(s.outputs).map(([k, v]) => [k, maskSecrets(v, secrets)]));
  return {
    metadata: {
      dagName: run.spec.dagName, dagRunId: run.spec.dagRunId, attemptId: run.status.attemptId,
      status: outputsStatusLabel(s.status), completedAt: s.finishedAt, params: maskSecretForms(paramsJson, secrets),
    },
    outputs,
  };
}

export async function finishRun(deps: EngineDeps, run: DagRunResource, ctx: RunContext): Promise<void> {
  const key = runKeyOf(run);
  await deps.logs.writeOutputs(key, run.status.attemptId, outputsBody(run, ctx.params.json, ctx.secretValues));
  deps.log.info('Finished dag-run', { dag: key.dagName, dagRunId: key.dagRunId, status: runStatusLabel(run.status.run.status) });
}

export function waitingStepsEnv(run: DagRunResource): EnvEntry {
  const names = run.status.run.nodes.filter((n) => n.status === NodeStatus.Waiting).map((n) => n.name);
  return { name: 'DAG_WAITING_STEPS', value: names.join(',') };
}
