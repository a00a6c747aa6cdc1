/**
 * Load-time checks of a container block's values (SPEC 2.5) that its JSON Schema cannot say: volumes are
 * `host:container[:ro|rw]`, ports are `[[hostIp:]hostPort:]containerPort[/protocol]`, logPattern is a
 * regular expression. A value that reads a variable (`$`) is checked when the step runs instead.
 */
import { at, idx, type Problems } from './errors.js';

export const PORT_PATTERN = /^(?:(?:(\[[0-9a-fA-F:]+\]|[0-9.]+):)?(\d+)?:)?(\d+)(?:\/(tcp|udp|sctp))?$/;

/** Why a volume item is not `host:container[:ro|rw]`, or undefined. */
export function volumeProblem(spec: string): string | undefined {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3 || !parts[0] || !parts[1]) return `"${spec}" is not host:container[:ro|rw]`;
  const mode = parts[2];
  if (mode !== undefined && mode !== 'ro' && mode !== 'rw') return `"${spec}": the mode must be ro or rw, not ${mode}`;
  return undefined;
}

/** Why a port item is not one `docker run -p` reads, or undefined. */
export const portProblem = (item: string): string | undefined => (PORT_PATTERN.test(item.trim()) ? undefined : `"${item}" is not [[hostIp:]hostPort:]containerPort[/protocol]`);

function regexProblem(p: string): string | undefined {
  try {
    new RegExp(p, 'm');
    return undefined;
  } catch (e) {
    return `is not a valid regular expression: ${(e as Error).message}`;
  }
}

const readsVariable = (s: string): boolean => s.includes('$');

export function checkContainerValues(c: { volumes: string[]; ports: string[]; logPattern?: string | undefined }, path: string, problems: Problems): void {
  c.volumes.forEach((v, i) => {
    const why = readsVariable(v) ? undefined : volumeProblem(v);
    if (why) problems.add(idx(at(path, 'volumes'), i), why);
  });
  c.ports.forEach((p, i) => {
    const why = readsVariable(p) ? undefined : portProblem(p);
    if (why) problems.add(idx(at(path, 'ports'), i), why);
  });
  const re = c.logPattern === undefined ? undefined : regexProblem(c.logPattern);
  if (re) problems.add(at(path, 'logPattern'), re);
}
