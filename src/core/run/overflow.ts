/**
 * The status a run is left with when its full status cannot be stored (over a DagRun's budget): failed,
 * saying why, with the captured values (what makes a status large) dropped, and the steps still
 * running marked failed (nobody follows them any more). Better than a run that can never be saved.
 */
import type { DagRunStatus } from '../resources.js';
import type { ItemState, NodeState, RunState } from './state.js';
import { isNodeDone, NodeStatus, RunStatus } from './status.js';

export function overflowedStatus(status: DagRunStatus, reason: string, nowIso: string): DagRunStatus {
  const error = `${reason}; the run was stopped there and its captured values dropped (write large data to a file, not to output:)`;
  const node = (n: NodeState): NodeState => ({
    ...n, output: undefined,
    ...(n.items ? { items: n.items.map((i): ItemState => ({ ...i, output: undefined })) } : {}),
    ...(isNodeDone(n.status) ? {} : { status: NodeStatus.Failed, error: 'not followed: the run\'s status outgrew its budget', finishedAt: nowIso }),
  });
  const run: RunState = {
    ...status.run, status: RunStatus.Failed, stage: 'done', error, finishedAt: nowIso,
    nodes: status.run.nodes.map(node), handlers: status.run.handlers.map(node), variables: {}, outputs: {},
  };
  return { ...status, run };
}
