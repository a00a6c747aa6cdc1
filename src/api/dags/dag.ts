/** One DAG (SPEC 4.3): detail, delete, spec get/put, rename, suspend. */
import { Router } from 'express';
import type { DagsRouterDeps } from './deps.js';
import { fileNameParam } from './input.js';
import { body } from '../input.js';
import { dagDetail } from './views.js';

export function dagRouter(deps: DagsRouterDeps): Router {
  const r = Router();
  const { dags, history } = deps;

  r.get('/dags/:fileName', async (req, res) => {
    const e = await dags.catalog.get(fileNameParam(req));
    res.json(dagDetail(deps.logs, e, await history.latest(e.loaded.definition.name)));
  });

  r.delete('/dags/:fileName', async (req, res) => {
    await dags.delete(fileNameParam(req));
    res.status(204).end();
  });

  r.get('/dags/:fileName/spec', async (req, res) => {
    const e = await dags.catalog.get(fileNameParam(req));
    res.json({ dag: { name: e.loaded.definition.name }, spec: e.text, errors: e.loaded.errors });
  });

  r.put('/dags/:fileName/spec', async (req, res) => {
    const fileName = fileNameParam(req);
    res.json({ errors: await dags.putSpec(fileName, body(req).spec) });
  });

  r.post('/dags/:fileName/rename', async (req, res) => {
    const fileName = fileNameParam(req);
    await dags.rename(fileName, body(req).newFileName);
    res.status(200).end();
  });

  r.post('/dags/:fileName/suspend', async (req, res) => {
    const fileName = fileNameParam(req);
    await dags.suspend(fileName, body(req).suspend);
    res.status(200).end();
  });

  return r;
}
