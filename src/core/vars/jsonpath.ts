/**
 * The small JSON path language of `${NAME.path.to.key}` (SPEC 2.7): `.key`, `[2]`, `[-1]` (from the end) and
 * `["key with spaces"]`, chained. Dagu runs a full jq query here; svc keeps to plain paths so a reference can
 * never execute anything and its result does not depend on a jq implementation.
 */

export type PathSegment = string | number;

const SEGMENT = /\.([^.[\]]+)|\[(-?\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** Parses `.a.b[2].c` (a leading key without a dot is accepted); undefined when the syntax is invalid. */
export function parseJsonPath(path: string): PathSegment[] | undefined {
  const p = path === '' || path.startsWith('.') || path.startsWith('[') ? path : `.${path}`;
  const out: PathSegment[] = [];
  let i = 0;
  while (i < p.length) {
    SEGMENT.lastIndex = i;
    const m = SEGMENT.exec(p);
    if (!m) return undefined;
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3] as string) as string);
    i = SEGMENT.lastIndex;
  }
  return out;
}

function step(value: unknown, seg: PathSegment): unknown {
  if (typeof seg === 'number') {
    if (!Array.isArray(value)) return undefined;
    return value[seg < 0 ? value.length + seg : seg];
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, seg) ? (value as Record<string, unknown>)[seg] : undefined;
}

/** The value at `path` inside `value`, or undefined when a segment is missing or the path is invalid. */
export function jsonPath(value: unknown, path: string): unknown {
  const segments = parseJsonPath(path);
  if (!segments) return undefined;
  return segments.reduce<unknown>((v, seg) => (v === undefined ? undefined : step(v, seg)), value);
}

/** How a JSON value is pasted into text: strings raw, everything else compact JSON, missing as ''. */
export function renderJsonValue(v: unknown): string {
  if (v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
