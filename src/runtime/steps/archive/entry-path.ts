/**
 * Entry names as archives store them, made safe to write: an entry is refused (the step fails naming
 * it) when its name is absolute or has a `..` segment, so no archive writes outside its destination
 * (the "zip slip"). Links are checked where they are created (extract.ts).
 */
import { matchesGlob } from 'node:path';
import { StepError } from '../runner.js';

/** The segments of an entry name ("./a//b/" -> [a, b]); a StepError when the name points outside. */
export function entrySegments(name: string): string[] {
  if (/^([a-zA-Z]:|[/\\])/.test(name)) throw outside(name, 'it is an absolute path');
  const segments = name.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw outside(name, 'it has a ".." segment');
  return segments;
}

export function outside(name: string, why: string): StepError {
  return new StepError(`archive step: entry "${name}" would be written outside the destination (${why}): refused`);
}

/** The name an entry is listed and filtered by: no leading "./", no trailing slash. */
export function displayName(name: string): string {
  return name.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
}

/**
 * Include/exclude filters over an entry's path ("data/sub/a.txt"): with include patterns an entry must
 * match one of them; an entry that matches an exclude pattern is left out. Globs as node's
 * path.matchesGlob reads them: `*` stays within one directory, `**` crosses directories.
 */
export function selected(path: string, include: string[], exclude: string[]): boolean {
  if (include.length > 0 && !include.some((p) => matchesGlob(path, p))) return false;
  return !exclude.some((p) => matchesGlob(path, p));
}
