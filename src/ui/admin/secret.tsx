/**
 * A secret the server returns once (an API key, a webhook token): shown in a read-only field with a Copy
 * button, with the warning that it will not be shown again. The caller drops the secret (resets its
 * mutation) when the dialog closes, so nothing keeps it.
 */
import { useId, useRef, useState, type ReactNode } from 'react';

async function copy(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (an insecure origin): the selected text through the older command.
    field?.select();
    return document.execCommand('copy');
  }
}

export function SecretOnce({ label, secret, children, onDone }: { label: string; secret: string; children?: ReactNode; onDone: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState<boolean>();
  const field = useRef<HTMLInputElement>(null);
  return (
    <div className="form secret-once">
      <p className="warning-box" role="note"><strong>Copy it now:</strong> this is the only time the {label.toLowerCase()} is shown. Only a hash is kept on the server.</p>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <div className="copy-row">
          <input id={id} ref={field} className="secret" value={secret} readOnly spellCheck={false} autoComplete="off" onFocus={(e) => e.currentTarget.select()} />
          <button type="button" onClick={() => void copy(secret, field.current).then(setCopied)}>Copy</button>
        </div>
        <small role="status" className={copied === false ? 'error-text' : 'muted'}>{copied === undefined ? '' : copied ? 'Copied to the clipboard.' : 'Could not copy: select the text and copy it.'}</small>
      </div>
      {children}
      <div className="actions">
        <button type="button" className="primary" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}

/** A text with a Copy button (the webhook's URL and curl example). */
export function CopyText({ label, text, multiline = false }: { label: string; text: string; multiline?: boolean }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="copy-text">
      <div className="copy-row">
        <pre className={multiline ? 'log' : 'log one-line'} aria-label={label}>{text}</pre>
        <button type="button" aria-label={`Copy ${label.toLowerCase()}`} onClick={() => void copy(text, null).then(setCopied)}>{copied ? 'Copied' : 'Copy'}</button>
      </div>
    </div>
  );
}
