/** Wiring of the DAG area (SPEC 4.3): the DAG store and catalog, and the DAG management router. */
import type { DagCatalog } from '../../engine/catalog.js';
import type { AreaParts, ServerBase } from './base.js';

export interface DagsArea extends AreaParts {
  catalog: DagCatalog;
}

export async function wireDags(_base: ServerBase): Promise<DagsArea> {
  throw new Error('the DAG area is not wired yet');
}
