/**
 * The sub-DAG runs a run's steps started (GET .../sub-dag-runs: direct children), each a link to its own
 * run page. Nothing is shown for a run without any.
 */
import { useSubRuns } from '../api/queries';
import { useNow } from '../lib/hooks';
import { isActive } from '../lib/status';
import { ErrorBox } from './query-state';
import { RunCells } from './run-cells';

export function SubRuns({ name, dagRunId }: { name: string; dagRunId: string }) {
  const subs = useSubRuns(name, dagRunId);
  const now = useNow(subs.data?.some((r) => isActive(r.statusLabel)) ?? false);
  if (subs.isError) return <ErrorBox error={subs.error} what="the sub-DAG runs" />;
  if (!subs.data || subs.data.length === 0) return null;
  return (
    <section aria-labelledby="sub-runs-title">
      <h2 id="sub-runs-title">Sub-DAG runs</h2>
      <table className="table" aria-label="Sub-DAG runs">
        <thead>
          <tr><th scope="col">Step</th><th scope="col">DAG</th><th scope="col">Run</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Duration</th><th scope="col">Params</th></tr>
        </thead>
        <tbody>
          {subs.data.map((r) => (
            <tr key={`${r.name}/${r.dagRunId}`} data-run={r.dagRunId} data-status={r.statusLabel}>
              <td><code>{r.stepName}</code></td>
              <RunCells run={r} now={now} />
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
