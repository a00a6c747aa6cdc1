/**
 * A run's body, shared by the DAG page (its latest run) and the run page: the graph coloured by the
 * run's step statuses, the node table, and the logs of the selected step (`?step=` in the URL, so a
 * step's logs can be linked).
 */
import { lazy, Suspense, useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { stepFields, type DagRunDetail, type StepFields } from '../api/types';
import { useNow } from '../lib/hooks';
import { isLive, type StatusLabel } from '../lib/status';
import { NodeTable, type NodeRow } from './node-table';
import { StepLog } from './step-log';
import { ApprovalPanel } from './approval';
import { useCan } from '../auth/session';
import { RetryStep, SetStepStatus } from './run-actions';
import { RunTimeline } from './run-timeline';

/** A hitl step waiting for a decision. */
const isWaitingApproval = (n: DagRunDetail['nodes'][number]): boolean => n.statusLabel === 'waiting' && (n.step as { type?: string }).type === 'hitl';

// The graph's libraries (React Flow, dagre) are half the bundle: loaded with the first page that draws one.
const DagGraph = lazy(() => import('./dag-graph').then((m) => ({ default: m.DagGraph })));

const HANDLERS = ['onInit', 'onSuccess', 'onFailure', 'onAbort', 'onExit', 'onWait'] as const;

export function runRows(run: DagRunDetail): NodeRow[] {
  const handlers = HANDLERS.flatMap((h) => (run[h] ? [{ node: run[h], handler: true }] : []));
  return [...run.nodes.map((node) => ({ node })), ...handlers];
}

export function useSelectedStep(): [string | undefined, (step: string | undefined) => void] {
  const [params, setParams] = useSearchParams();
  const select = useCallback((step: string | undefined) => {
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (step === undefined || next.get('step') === step) next.delete('step');
      else next.set('step', step);
      return next;
    }, { replace: true });
  }, [setParams]);
  return [params.get('step') ?? undefined, select];
}

/**
 * `steps`: the graph's steps (default: the run's own); `run`: null before the DAG's first run;
 * `timeline`: the steps over time between the graph and the table (the run page).
 */
export function RunView({ run, steps, timeline = false }: { run: DagRunDetail | null; steps?: readonly StepFields[]; timeline?: boolean }) {
  const [selected, select] = useSelectedStep();
  const decide = useCan('operator');
  const live = isLive(run);
  const now = useNow(live);
  const graphSteps = useMemo(() => steps ?? run?.nodes.map((n) => stepFields(n.step)) ?? [], [steps, run]);
  const statuses = useMemo(() => new Map<string, StatusLabel>(run ? runRows(run).map((r) => [r.node.step.name, r.node.statusLabel]) : []), [run]);
  const rows = run ? runRows(run) : [];
  const shown = run && selected && rows.some((r) => r.node.step.name === selected) ? selected : undefined;
  return (
    <>
      <Suspense fallback={<div className="graph graph-loading" aria-busy="true" />}>
        <DagGraph steps={graphSteps} statuses={statuses} selected={shown} onSelect={select} />
      </Suspense>
      {run ? (
        <>
          {run.nodes.filter(isWaitingApproval).map((n) => (!decide ? <p key={n.step.name} className="muted" role="status">Step <code>{n.step.name}</code> waits for an approval.</p> :
            <ApprovalPanel key={n.step.name} name={run.name} dagRunId={run.dagRunId} step={n.step.name} config={(n.step as { config?: Record<string, unknown> }).config ?? {}} />
          ))}
          {timeline ? <RunTimeline nodes={rows.map((r) => r.node)} now={now} selected={shown} onSelect={select} /> : null}
          <NodeTable rows={rows} selected={shown} onSelect={select} now={now} />
          {shown ? <StepLog key={`${run.dagRunId}/${shown}`} name={run.name} dagRunId={run.dagRunId} step={shown} live={live} onClose={() => select(undefined)} actions={<><RetryStep run={run} step={shown} /><SetStepStatus run={run} step={shown} current={rows.find((r) => r.node.step.name === shown)?.node.statusLabel} /></>} /> : null}
        </>
      ) : null}
    </>
  );
}
