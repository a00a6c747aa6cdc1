/**
 * Webhooks (`/admin/webhooks`, admin; SPEC 4.7): every DAG's webhook in a table (GET /webhooks), and the
 * webhook panel of the DAG chosen (`?dag=` in the address: a row's Manage link, or the DAG picker, which
 * also reaches DAGs without a webhook to create one).
 */
import { Link, useSearchParams } from 'react-router';
import { useDags } from '../api/queries';
import { Loading } from '../components/query-state';
import { formatTime } from '../lib/format';
import { useTitle } from '../lib/hooks';
import { useWebhooks } from './api';
import { AdminError, AdminOnly } from './common';
import { WebhookPanel } from './webhook-panel';

export function WebhooksPage() {
  useTitle('Webhooks');
  return <AdminOnly title="Webhooks"><Webhooks /></AdminOnly>;
}

function Webhooks() {
  const hooks = useWebhooks();
  const dags = useDags();
  const [params, setParams] = useSearchParams();
  const dag = params.get('dag') ?? '';
  return (
    <>
      <header className="page-header"><h1>Webhooks</h1></header>
      {hooks.isPending ? <Loading what="webhooks" /> : null}
      {hooks.isError ? <AdminError error={hooks.error} what="Webhooks" /> : null}
      {hooks.data && hooks.data.length === 0 ? <p className="muted">No DAG has a webhook yet.</p> : null}
      {hooks.data && hooks.data.length > 0 ? (
        <table className="table" aria-label="Webhooks">
          <thead>
            <tr><th scope="col">DAG</th><th scope="col">State</th><th scope="col">Token</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
          </thead>
          <tbody>
            {hooks.data.map((w) => (
              <tr key={w.id} data-webhook={w.dagName} className={w.dagName === dag ? 'selected' : undefined}>
                <th scope="row"><Link to={`/dags/${encodeURIComponent(w.dagName)}`}>{w.dagName}</Link></th>
                <td><span className={`badge tone-${w.enabled ? 'ok' : 'idle'}`}>{w.enabled ? 'enabled' : 'disabled'}</span></td>
                <td><code>{w.tokenPrefix}…</code></td>
                <td className="nowrap">{formatTime(w.createdAt)}</td>
                <td className="nowrap">{w.lastUsedAt ? formatTime(w.lastUsedAt) : <span className="muted">never</span>}</td>
                <td><Link to={{ search: `?dag=${encodeURIComponent(w.dagName)}` }} aria-label={`Manage the webhook of ${w.dagName}`}>Manage</Link></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <section aria-labelledby="manage-title">
        <h2 id="manage-title">Manage a DAG's webhook</h2>
        <div className="field name-field">
          <label htmlFor="webhook-dag">DAG</label>
          <select id="webhook-dag" value={dag} onChange={(e) => setParams(e.target.value ? { dag: e.target.value } : {})}>
            <option value="">Choose a DAG…</option>
            {(dags.data?.dags ?? []).map((d) => <option key={d.fileName} value={d.fileName}>{d.fileName}</option>)}
          </select>
        </div>
        {dag ? <WebhookPanel key={dag} fileName={dag} /> : null}
      </section>
    </>
  );
}
