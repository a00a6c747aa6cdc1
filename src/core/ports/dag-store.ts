/**
 * Stores DAG files by REST `fileName` (SPEC 4.3): the text as written (comments kept) and a per-DAG
 * suspend flag. Embedded: files in the DAGs directory; Kubernetes: Dag resources.
 * - every method validates fileName (`[a-zA-Z0-9_-]+`) before touching anything: BadRequestError;
 * - `stamp` changes whenever the stored text may have changed (caches compare it, never parse it);
 * - write with createOnly fails with AlreadyExistsError; rename never overwrites (AlreadyExistsError);
 * - read returns undefined when absent; delete/rename/setSuspended of an absent DAG throw NotFoundError.
 */
export interface DagFileInfo {
  fileName: string;
  /** Opaque version of the stored text (e.g. inode, size and mtime). */
  stamp: string;
  /** Last modification time (ISO). */
  updatedAt: string;
}

export interface DagFileText extends DagFileInfo {
  text: string;
  /** Where the DAG lives (absolute file path embedded): its directory is the default working directory. */
  location?: string;
}

export interface DagStore {
  /** Every stored DAG; files that cannot be inspected are reported in errors. */
  list(): Promise<{ files: DagFileInfo[]; errors: string[] }>;
  stat(fileName: string): Promise<DagFileInfo | undefined>;
  read(fileName: string): Promise<DagFileText | undefined>;
  write(fileName: string, text: string, opts?: { createOnly?: boolean }): Promise<void>;
  delete(fileName: string): Promise<void>;
  rename(fileName: string, newFileName: string): Promise<void>;
  isSuspended(fileName: string): Promise<boolean>;
  /** Every suspended fileName (one read for a listing). */
  suspended(): Promise<Set<string>>;
  setSuspended(fileName: string, suspended: boolean): Promise<void>;
}
