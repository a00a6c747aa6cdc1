/**
 * A finished run's collected outputs (GET /dag-runs/{name}/{dagRunId}/outputs, SPEC 2.7): each key and
 * value as the server gives them. The server masks every secret value (`*******`) before it writes the
 * outputs; the UI shows them as they come, and says which are masked.
 */
import { useOutputs } from '../api/queries';
import type { DagRunDetail } from '../api/types';
import { isFinished } from '../lib/status';
import { ErrorBox, Loading } from './query-state';

const MASK = '*******';

export function OutputsTable({ run }: { run: DagRunDetail }) {
  const finished = isFinished(run.statusLabel);
  const outputs = useOutputs(run.name, run.dagRunId, finished);
  const entries = Object.entries(outputs.data?.outputs ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section aria-labelledby="outputs-title" className="outputs">
      <h2 id="outputs-title">Outputs</h2>
      {!finished ? <p className="muted">Collected when the run ends.</p> : null}
      {finished && outputs.isPending ? <Loading what="the outputs" /> : null}
      {outputs.isError ? <ErrorBox error={outputs.error} what="the outputs" /> : null}
      {finished && outputs.data && entries.length === 0 ? <p className="muted">This run has no outputs.</p> : null}
      {entries.length > 0 ? (
        <table className="table outputs-table" aria-label="Outputs of the run">
          <thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
          <tbody>
            {entries.map(([k, v]) => (
              <tr key={k} data-output={k}>
                <th scope="row"><code>{k}</code></th>
                <td>
                  <pre className="output-value">{v}</pre>
                  {v.includes(MASK) ? <span className="muted small">A secret's value is masked ({MASK}).</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
