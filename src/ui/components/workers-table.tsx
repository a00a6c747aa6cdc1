/**
 * The workers (GET /workers) as a table: id, health (SPEC 3.4, written as a word), labels, running tasks,
 * last heartbeat. The dashboard shows the count of running tasks; the Workers page (`tasks`) lists each
 * task with a link to its run (and to its root run when it is a sub-DAG run).
 */
import { Link } from 'react-router';
import { useWorkers } from '../api/queries';
import type { Worker } from '../api/types';
import { formatTime } from '../lib/format';
import { ErrorBox, Loading } from './query-state';

const HEALTH: Record<string, { word: string; tone: string }> = {
  WORKER_HEALTH_STATUS_HEALTHY: { word: 'healthy', tone: 'ok' },
  WORKER_HEALTH_STATUS_WARNING: { word: 'warning', tone: 'warn' },
  WORKER_HEALTH_STATUS_UNHEALTHY: { word: 'unhealthy', tone: 'fail' },
};

const runPath = (name: string, id: string) => `/dag-runs/${encodeURIComponent(name)}/${encodeURIComponent(id)}`;

/** The workers, loaded and refreshed here (every 10 s; with `tasks`, every 2 s). */
export function Workers({ tasks = false }: { tasks?: boolean }) {
  const workers = useWorkers(tasks ? 2000 : 10_000);
  if (workers.isPending) return <Loading what="workers" />;
  if (workers.isError) return <ErrorBox error={workers.error} what="the workers" />;
  if (workers.data.length === 0) return <p className="muted">No workers.</p>;
  return <WorkersTable workers={workers.data} tasks={tasks} />;
}

export function WorkersTable({ workers, tasks }: { workers: Worker[]; tasks: boolean }) {
  return (
    <table className="table" aria-label="Workers">
      <thead>
        <tr>
          <th scope="col">Worker</th><th scope="col">Health</th><th scope="col">Labels</th>
          <th scope="col">{tasks ? 'Running tasks' : 'Running'}</th><th scope="col">Last heartbeat</th>
        </tr>
      </thead>
      <tbody>
        {workers.map((w) => {
          const h = HEALTH[w.health_status];
          return (
            <tr key={w.id} data-worker={w.id} data-health={h?.word ?? w.health_status}>
              <th scope="row"><code>{w.id}</code></th>
              <td><span className={`badge tone-${h?.tone ?? 'idle'}`}>{h?.word ?? w.health_status}</span></td>
              <td className="small">{Object.entries(w.labels).map(([k, v]) => `${k}=${v}`).join(', ') || '—'}</td>
              {tasks ? <td><Tasks worker={w} /></td> : <td className="num">{w.running_tasks.length}</td>}
              <td className="nowrap">{formatTime(w.last_heartbeat)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Tasks({ worker: w }: { worker: Worker }) {
  if (w.running_tasks.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="plain-list" aria-label={`Tasks running on ${w.id}`}>
      {w.running_tasks.map((t) => {
        const sub = t.rootDagRunId !== '' && (t.rootDagRunId !== t.dagRunId || t.rootDagRunName !== t.dagName);
        return (
          <li key={`${t.dagName}/${t.dagRunId}`} data-task={t.dagRunId}>
            <Link to={sub ? `${runPath(t.rootDagRunName, t.rootDagRunId)}` : runPath(t.dagName, t.dagRunId)}>{t.dagName} <code>{t.dagRunId}</code></Link>
            {sub ? <span className="muted small"> (sub-DAG of {t.rootDagRunName} <code>{t.rootDagRunId}</code>)</span> : null}
            <span className="muted small"> since {formatTime(t.startedAt)}</span>
          </li>
        );
      })}
    </ul>
  );
}
