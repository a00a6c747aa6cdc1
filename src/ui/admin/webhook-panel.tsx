/**
 * One DAG's webhook (SPEC 4.7, admin): whether it is enabled (a switch), its token's prefix, when it was
 * made and last used, its URL and a curl example; Create, Regenerate token (the old one fails at once)
 * and Delete. A new token is shown once, in a dialog, with the curl example carrying it. The same panel
 * is the admin Webhooks page's and the DAG page's Webhook tab.
 */
import { useState } from 'react';
import { API_BASE } from '../api/client';
import { Dialog } from '../components/dialog';
import { ErrorBox, Loading } from '../components/query-state';
import { formatTime } from '../lib/format';
import { useWebhook, useWebhookAction } from './api';
import { CopyText, SecretOnce } from './secret';

export function webhookUrl(fileName: string): string {
  return `${window.location.origin}${API_BASE}/webhooks/${encodeURIComponent(fileName)}`;
}

export function curlExample(fileName: string, token: string): string {
  return [
    `curl -X POST '${webhookUrl(fileName)}' \\`,
    `  -H 'Authorization: Bearer ${token}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"payload": {"key": "value"}}'`,
  ].join('\n');
}

export function WebhookPanel({ fileName }: { fileName: string }) {
  const hook = useWebhook(fileName);
  const action = useWebhookAction(fileName);
  const [confirm, setConfirm] = useState<'regenerate' | 'delete'>();
  const token = action.data?.token;
  const busy = action.isPending;
  if (hook.isPending) return <Loading what="the webhook" />;
  if (hook.isError) return <ErrorBox error={hook.error} what="the webhook" />;
  const w = hook.data;
  return (
    <section className="panel webhook" aria-label={`Webhook of ${fileName}`} data-webhook={w ? (w.enabled ? 'enabled' : 'disabled') : 'none'}>
      {action.isError ? <ErrorBox error={action.error} /> : null}
      {w === null ? (
        <>
          <p>{fileName} has no webhook. A webhook lets another system start a run of this DAG with a POST that carries its token, which works for this DAG only.</p>
          <button type="button" className="primary" disabled={busy} onClick={() => action.mutate({ op: 'create' })}>Create webhook</button>
        </>
      ) : (
        <>
          <div className="panel-header">
            <h3>Webhook of {fileName}</h3>
            <button type="button" role="switch" className="switch" aria-checked={w.enabled} aria-label={`Webhook of ${fileName} enabled`} disabled={busy}
              onClick={() => action.mutate({ op: 'toggle', enabled: !w.enabled })}>
              <span className="switch-knob" aria-hidden="true" />
              <span className="switch-text">{w.enabled ? 'on' : 'off'}</span>
            </button>
          </div>
          <dl className="facts">
            <dt>State</dt><dd>{w.enabled ? 'enabled' : 'disabled: a POST with its token is refused (403)'}</dd>
            <dt>Token</dt><dd><code>{w.tokenPrefix}…</code></dd>
            <dt>Created</dt><dd>{formatTime(w.createdAt)}{w.createdBy ? ` by ${w.createdBy}` : ''}</dd>
            <dt>Last used</dt><dd>{w.lastUsedAt ? formatTime(w.lastUsedAt) : 'never'}</dd>
          </dl>
          <h4>URL</h4>
          <CopyText label="Webhook URL" text={webhookUrl(fileName)} />
          <h4>Example</h4>
          <CopyText label="curl example" text={curlExample(fileName, '<token>')} multiline />
          <div className="actions">
            <button type="button" disabled={busy} onClick={() => setConfirm('regenerate')}>Regenerate token</button>
            <button type="button" className="danger" disabled={busy} onClick={() => setConfirm('delete')}>Delete webhook</button>
          </div>
        </>
      )}
      <Dialog open={confirm !== undefined} title={confirm === 'delete' ? `Delete the webhook of ${fileName}?` : `Regenerate the token of ${fileName}?`} onClose={() => setConfirm(undefined)}>
        <div className="form">
          <p>{confirm === 'delete' ? 'The webhook and its token are deleted; a POST with it is refused.' : 'A new token is made; the current one stops working at once.'}</p>
          <div className="actions">
            <button type="button" className="ghost" onClick={() => setConfirm(undefined)}>Cancel</button>
            <button type="button" className={confirm === 'delete' ? 'danger' : 'primary'} onClick={() => { if (confirm) action.mutate({ op: confirm }); setConfirm(undefined); }}>
              {confirm === 'delete' ? 'Delete' : 'Regenerate'}
            </button>
          </div>
        </div>
      </Dialog>
      <Dialog open={token !== undefined} title={`Webhook token of ${fileName}`} onClose={() => action.reset()}>
        {token ? (
          <SecretOnce label="Webhook token" secret={token} onDone={() => action.reset()}>
            <CopyText label="curl example with the token" text={curlExample(fileName, token)} multiline />
          </SecretOnce>
        ) : null}
      </Dialog>
    </section>
  );
}
