/** The DAG catalog: DAG files by fileName, parsed and cached. Implemented over the DagStore port. */
import type { LoadedDag } from '../../core/ports/engine-ports.js';

export interface CatalogEntry {
  /** REST fileName (`[a-zA-Z0-9_-]+`), the stored file's name without extension. */
  fileName: string;
  loaded: LoadedDag;
  /** The YAML text as written (comments kept). */
  text: string;
  suspended: boolean;
  /** Last modification time (ISO). */
  updatedAt: string;
}

export interface DagCatalog {
  /** NotFoundError when absent; a file that does not parse still returns an entry with errors. */
  get(fileName: string): Promise<CatalogEntry>;
  /** Every DAG file; unreadable ones are reported in errors, never fail the listing. */
  list(): Promise<{ entries: CatalogEntry[]; errors: string[] }>;
}
