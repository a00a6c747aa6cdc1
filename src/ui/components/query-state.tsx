/** How a page shows a query that is loading or failed. */
import { ApiError } from '../api/client';

export function Loading({ what }: { what: string }) {
  return <p className="muted" role="status" aria-busy="true">Loading {what}…</p>;
}

export function ErrorBox({ error, what }: { error: unknown; what?: string }) {
  const text = error instanceof ApiError ? `${error.message} (${error.code}, HTTP ${error.status})` : String(error);
  return (
    <div className="error-box" role="alert">
      {what ? <strong>Could not load {what}: </strong> : null}
      {text}
    </div>
  );
}
