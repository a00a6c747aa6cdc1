/**
 * What a caller may ask of a start beyond the DAG itself (docs/semantics.md "Start requests"): the DAG's
 * runConfig locks its params and run id against the people who start it, and a run's identity name
 * (a `dagName` override, an inline spec's name) never files it into another stored DAG's history.
 */
import { BadRequestError } from '../../core/errors.js';
import type { DagDefinition } from '../../core/spec/types.js';
import type { CatalogEntry, DagCatalog } from './catalog.js';

/** SPEC 2.2 runConfig: a start that sets params or a run id the DAG locks is refused (400). */
export function checkRunConfig(def: Pick<DagDefinition, 'name' | 'runConfig'>, o: { params?: string | undefined; dagRunId?: string | undefined }): void {
  const rc = def.runConfig;
  if (rc.disableParamEdit && o.params !== undefined && o.params.trim() !== '') {
    throw new BadRequestError(`DAG ${def.name} does not accept params (runConfig.disableParamEdit): start it without params, it runs with its defaults`);
  }
  if (rc.disableRunIdEdit && o.dagRunId !== undefined && o.dagRunId !== '') {
    throw new BadRequestError(`DAG ${def.name} does not accept a run id (runConfig.disableRunIdEdit): start it without dagRunId, one is generated`);
  }
}

/** The started DAG: its stored file, or the name its definition has (a run's snapshot). */
export interface OwnDag { fileName?: string; definitionName?: string }

/**
 * The fileName of a stored DAG other than `own` whose runs are filed under `name` (its definition's name,
 * or its file name), or undefined when there is none.
 */
export async function nameOwner(catalog: DagCatalog, name: string, own: OwnDag = {}): Promise<string | undefined> {
  const { entries } = await catalog.list();
  const isOwn = (e: CatalogEntry) => e.fileName === own.fileName || e.loaded.definition.name === own.definitionName;
  return entries.find((e) => !isOwn(e) && (e.loaded.definition.name === name || e.fileName === name))?.fileName;
}

/** Refuses (400) a run name that belongs to another stored DAG: its history, retention and limits are that DAG's. */
export async function checkRunName(catalog: DagCatalog, name: string, own: OwnDag = {}): Promise<void> {
  const owner = await nameOwner(catalog, name, own);
  if (owner !== undefined) {
    throw new BadRequestError(`the run name ${JSON.stringify(name)} belongs to the stored DAG ${owner}: a start cannot file its run into another DAG's history; choose another name`);
  }
}
