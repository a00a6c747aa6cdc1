/**
 * LogPageReader over files under a store's root: opened without following links (fs/safe-open.ts) and
 * paged by pager.ts in fixed chunks and budgets, so a page of a multi-gigabyte log (or of one
 * multi-gigabyte line) costs the page, not the file. A link, FIFO, device or directory planted where a
 * log belongs reads as no log: its target is never read.
 */
import type { LogPage, LogQuery } from '../../core/ports/log-store.js';
import { absentIfPlanted, withFileUnder } from '../fs/safe-open.js';
import { pageOf } from './pager.js';

export class FsLogPages {
  constructor(private readonly root: string) {}

  read(path: string, q: LogQuery): Promise<LogPage | undefined> {
    return absentIfPlanted(withFileUnder(this.root, path, (f) => pageOf(f, q)));
  }
}
