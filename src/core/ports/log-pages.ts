/** Reading a page of lines out of a (possibly huge, possibly growing) log file: SPEC 2.8 log page. */

/** At most one of head, tail, offset applies (in that order of precedence); limit caps every page. */
export interface LogQuery {
  /** The first N lines. */
  head?: number;
  /** The last N lines. */
  tail?: number;
  /** 1-based first line of the page. */
  offset?: number;
  /** Lines per page (1-10000; default and maximum 10000). */
  limit?: number;
}

export interface LogPage {
  content: string;
  lineCount: number;
  totalLines: number;
  /** Lines exist beyond the page: after it (head, offset) or before it (tail). */
  hasMore: boolean;
  /** totalLines is extrapolated (very large files are not scanned to the end). */
  isEstimate: boolean;
}

export const MAX_LOG_LINES = 10_000;

export interface LogPageReader {
  /** undefined when the file does not exist (yet). */
  read(path: string, q: LogQuery): Promise<LogPage | undefined>;
}
