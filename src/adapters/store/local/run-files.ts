/**
 * Reads of a run's own files (spec.json, status.json, stop) under the runs root, through the one safe
 * open (ADR 0026): a step runs as the server's user and can replace any of these names, or a directory
 * above them, with a link, a FIFO or a hard link. Such a name reads as absent: the run is damaged and is
 * answered as missing (404, left out of lists), never as the link target's content and never by a read
 * that blocks. Writes rename over the name (replacing a link, never writing through it) only after the
 * directories down to it were checked.
 */
import { CorruptFileError, parseJson } from '../../fs/atomic.js';
import { absentIfPlanted, dirsUnder, isFileUnder, isPlanted, OversizeFileError, readHeadUnderSync, readSmallUnder } from '../../fs/safe-open.js';

/** Far above any status.json (~100 KB for big runs) or spec.json we write. */
export const RUN_FILE_MAX_BYTES = 64 * 1024 * 1024;

export class RunFiles {
  constructor(private readonly root: string) {}

  /** Parsed JSON; undefined when the file is missing or planted; CorruptFileError for bad or huge content. */
  async json(path: string): Promise<unknown> {
    let text: string | undefined;
    try {
      text = await absentIfPlanted(readSmallUnder(this.root, path, RUN_FILE_MAX_BYTES));
    } catch (e) {
      if (e instanceof OversizeFileError) throw new CorruptFileError(path, e);
      throw e;
    }
    return text === undefined ? undefined : parseJson<unknown>(path, text);
  }

  /** The first bytes; undefined when missing or planted. Synchronous: the status update's hot path. */
  head(path: string, bytes: number): string | undefined {
    try {
      return readHeadUnderSync(this.root, path, bytes);
    } catch (e) {
      if (isPlanted(e)) return undefined;
      throw e;
    }
  }

  /** A regular file of ours is at `path` (a link, FIFO or hard link there is none). */
  exists(path: string): boolean {
    return isFileUnder(this.root, path);
  }

  /** The directories down to `path` exist and none is a link: a write there stays in the run's directory. */
  dirsSafe(path: string): boolean {
    try {
      return dirsUnder(this.root, path);
    } catch (e) {
      if (isPlanted(e)) return false;
      throw e;
    }
  }
}
