/**
 * Appends through file descriptors kept open, a bounded number of them: one write(2) per append instead of
 * open, write and close (the run log is appended to on every state change of a run, on the path from one
 * step's end to the next step's start). A file removed meanwhile (its run deleted) is opened anew.
 * Files are opened under a root without following links (safe-open.ts): a step that replaced a log with a
 * link gets a PlantedFileError for the append, never an append to the link's target.
 */
import { closeSync, fstatSync, writeSync } from 'node:fs';
import { openForAppend } from './safe-open.js';

export class Appender {
  private readonly fds = new Map<string, number>();

  constructor(private readonly root: string, private readonly max = 32) {}

  append(path: string, text: string): void {
    let fd = this.fds.get(path);
    if (fd !== undefined) {
      this.fds.delete(path); // most recently used last: the Map's order is the eviction order
      if (fstatSync(fd).nlink === 0) {
        closeQuietly(fd);
        fd = undefined;
      }
    }
    fd ??= this.open(path);
    this.fds.set(path, fd);
    writeSync(fd, text);
  }

  private open(path: string): number {
    while (this.fds.size >= this.max) {
      const [oldest, fd] = this.fds.entries().next().value as [string, number];
      this.fds.delete(oldest);
      closeQuietly(fd);
    }
    return openForAppend(this.root, path);
  }
}

function closeQuietly(fd: number): void {
  try { closeSync(fd); } catch { /* already closed */ }
}
