/** The switch that suspends or resumes a DAG's schedule (POST /dags/{fileName}/suspend). */
import { useSuspend } from '../api/queries';
import { useCan } from '../auth/session';

/** For a user who may not suspend (below manager): the schedule's state as text. */
export function SuspendToggle({ fileName, suspended }: { fileName: string; suspended: boolean }) {
  const suspend = useSuspend();
  if (!useCan('manager')) return <span className="muted small" data-schedule={suspended ? 'off' : 'on'}>{suspended ? 'suspended' : 'scheduled'}</span>;
  const on = suspend.isPending ? suspend.variables.suspend === false : !suspended;
  return (
    <button
      type="button"
      role="switch"
      className="switch"
      aria-checked={on}
      aria-label={`Schedule of ${fileName}`}
      title={on ? 'Scheduled runs on: click to suspend' : 'Suspended: click to resume scheduled runs'}
      disabled={suspend.isPending}
      onClick={() => suspend.mutate({ fileName, suspend: on })}
    >
      <span className="switch-knob" aria-hidden="true" />
      <span className="switch-text">{on ? 'on' : 'off'}</span>
    </button>
  );
}
