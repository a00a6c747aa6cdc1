import { labelText, toneOf, type StatusLabel } from '../lib/status';

/** A status as text on its tone's colour (the word is always there: colour is never the only cue). */
export function StatusBadge({ label }: { label: StatusLabel | undefined }) {
  return <span className={`badge tone-${toneOf(label)}`} data-status={label ?? 'not_started'}>{labelText(label)}</span>;
}
