/** The switch that suspends or resumes a DAG's schedule (POST /dags/{fileName}/suspend). */
import { useSuspend } from '../api/queries';

export function SuspendToggle({ fileName, suspended }: { fileName: string; suspended: boolean }) {
  const suspend = useSuspend();
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
