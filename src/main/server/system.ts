/** Wiring of the system area (SPEC 4.1, 4.7, 4.8): health, metrics, monitoring, workers, webhooks, remote nodes, OpenAPI. */
import type { AreaParts, ServerBase } from './base.js';
import type { DagsArea } from './dags.js';
import type { RunsArea } from './runs.js';

export async function wireSystem(_base: ServerBase, _dags: DagsArea, _runs: RunsArea): Promise<AreaParts> {
  throw new Error('the system area is not wired yet');
}
