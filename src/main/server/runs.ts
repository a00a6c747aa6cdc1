/** Wiring of the runs area (SPEC 4.4, 4.5, 3.3): launcher, queue processor, scheduler, run routers. */
import type { RunLauncher } from '../../engine/launcher.js';
import type { AreaParts, ServerBase } from './base.js';
import type { DagsArea } from './dags.js';

export interface RunsArea extends AreaParts {
  launcher: RunLauncher;
}

export async function wireRuns(_base: ServerBase, _dags: DagsArea): Promise<RunsArea> {
  throw new Error('the runs area is not wired yet');
}
