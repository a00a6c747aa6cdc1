/** Problems found while loading: every message names the field path (`steps[1] (build).depends: ...`). */

export class Problems {
  readonly list: string[] = [];

  /** Records `path: message` (just the message when the path is empty). */
  add(path: string, message: string): void {
    this.list.push(path ? `${path}: ${message}` : message);
  }

  get count(): number {
    return this.list.length;
  }
}

/** `base.key`, or `key` at the root. */
export function at(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}

/** `base[i]`. */
export function idx(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** A step's path: `steps[1]`, plus ` (name)` when the step was given a name, so messages are easy to place. */
export function stepLabel(path: string, name: unknown): string {
  return typeof name === 'string' && name !== '' ? `${path} (${name})` : path;
}

/** Keeps the first occurrence of each message, in order. */
export function unique(messages: string[]): string[] {
  return [...new Set(messages)];
}
