/** Starting runs (SPEC 4.4): from a stored DAG file (start, start-sync, enqueue) or an inline spec. */
import { Router } from 'express';
import type { RunKey } from '../../core/ports/run-store.js';
import { RunStatus, isRunTerminal } from '../../core/run/status.js';
import { runDetail } from '../../engine/services/presenter.js';
import { fileNameParam } from '../dags/input.js';
import { body } from '../input.js';
import type { RunsRouterDeps } from './deps.js';
import { intIn } from './input.js';
import { inlineDag, startOptions } from './launch-input.js';
import { checkRunConfig, checkRunName } from '../../engine/services/start-policy.js';
import type { AdmitOptions } from '../../engine/services/api.js';

/** SPEC 8: start-sync waits 1 to 86400 seconds. */
const MAX_SYNC_TIMEOUT = 86_400;

export function startRouter(deps: RunsRouterDeps): Router {
  const r = Router();
  const { catalog, launcher } = deps;
  /** The stored DAG, once the request passes its runConfig and names no other DAG's history. */
  const loadValid = async (fileName: string, o: AdmitOptions) => {
    const { loaded } = await catalog.get(fileName);
    checkRunConfig(loaded.definition, o);
    if (o.dagName !== undefined && o.dagName !== loaded.definition.name) await checkRunName(catalog, o.dagName, { fileName });
    return loaded;
  };
  /** An inline spec: its name is not a stored DAG's either. */
  const inline = async (b: Record<string, unknown>) => {
    const dag = inlineDag(b);
    await checkRunName(catalog, dag.definition.name);
    return dag;
  };

  r.post('/dags/:fileName/start', async (req, res) => {
    const fileName = fileNameParam(req);
    const o = startOptions(body(req));
    const started = await launcher.start(await loadValid(fileName, o), o);
    res.json({ dagRunId: started.dagRunId });
  });

  r.post('/dags/:fileName/start-sync', async (req, res) => {
    const fileName = fileNameParam(req);
    const b = body(req);
    const timeout = intIn(b, 'timeout', 1, MAX_SYNC_TIMEOUT, true)!;
    const o = startOptions(b);
    const started = await launcher.start(await loadValid(fileName, o), { ...o, conflictCode: 'already_exists' });
    const key: RunKey = { dagName: started.dagName, dagRunId: started.dagRunId };
    const done = await deps.watcher.until(key, (run) => isRunTerminal(run.status.run.status) || run.status.run.status === RunStatus.Waiting, timeout * 1000);
    if (!done) {
      res.status(408).json({ code: 'timeout', message: `dag-run ${started.dagRunId} did not finish within ${timeout}s; it continues in the background`, dagRunId: started.dagRunId });
      return;
    }
    res.json({ dagRun: runDetail(deps.logs, done) });
  });

  r.post('/dags/:fileName/enqueue', async (req, res) => {
    const fileName = fileNameParam(req);
    const o = startOptions(body(req), true);
    const queued = await launcher.enqueue(await loadValid(fileName, o), o);
    res.json({ dagRunId: queued.dagRunId });
  });

  // Inline specs (no stored file): refused with max_run_reached under singleton or a full maxActiveRuns.
  r.post('/dag-runs', async (req, res) => {
    const b = body(req);
    const o = startOptions({ ...b, dagName: undefined });
    const dag = await inline(b);
    const started = await launcher.start(dag, { ...o, capacity: true, conflictCode: 'max_run_reached', defaultWorkingDir: deps.inlineWorkingDir });
    res.json({ dagRunId: started.dagRunId });
  });

  r.post('/dag-runs/enqueue', async (req, res) => {
    const b = body(req);
    const o = startOptions({ ...b, dagName: undefined }, true);
    const dag = await inline(b);
    const queued = await launcher.enqueue(dag, { ...o, capacity: true, conflictCode: 'max_run_reached', defaultWorkingDir: deps.inlineWorkingDir });
    res.json({ dagRunId: queued.dagRunId });
  });

  return r;
}
