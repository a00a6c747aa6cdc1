/**
 * What archive and s3 steps print: one JSON object per run (like the reference), indented by two, so
 * `output:` captures it and later steps read fields of it (`${RESULT.filesExtracted}`).
 */
import type { StepIO } from '../runner.js';
import type { EntryType } from './entry.js';

export function printJson(io: StepIO, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/** Elapsed time since `start` (a performance.now() reading): "85ms", "2.31s". */
export function since(start: number): string {
  const ms = performance.now() - start;
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(2)}s`;
}

const TYPE_CHAR: Record<EntryType, string> = { file: '-', dir: 'd', symlink: 'l', hardlink: 'h', other: '?' };

/** ls-style mode text: "-rw-r--r--", "drwxr-xr-x", "lrwxrwxrwx". */
export function modeText(type: EntryType, mode: number): string {
  const bits = 'rwxrwxrwx'.split('').map((ch, i) => ((mode >> (8 - i)) & 1 ? ch : '-')).join('');
  return TYPE_CHAR[type] + bits;
}
