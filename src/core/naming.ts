/**
 * Names of every object svc creates, in both backends (ARCHITECTURE "Identities, not paths"): pure,
 * deterministic and Kubernetes-valid. A run is `(dagName, dagRunId)`; an execution adds the attempt,
 * node, execution number and item. The same identity always gets the same name, so creating an object
 * that exists means "adopt" (a Pod of an execution is never started twice).
 *
 * Object names are DNS-1123 labels (lowercase letters, digits and `-`, alphanumeric at both ends, at
 * most 63 characters): a readable prefix from the identity, then a 64-bit FNV-1a hash of the exact
 * identity, so two identities that read alike (case, `_` or `.` folded, truncation, `-` in either part)
 * never share a name. Label values keep the original when it is a valid label value, else the same
 * prefix-and-hash form; the originals travel in annotations (SVC_ANNOTATIONS).
 */

export const MAX_NAME_LENGTH = 63;

/** Labels on every DagRun (selectors) and annotations carrying the exact identity back. */
export const SVC_LABELS = { dag: 'svc.io/dag', dagRun: 'svc.io/dag-run', root: 'svc.io/root-dag-run', parent: 'svc.io/parent-dag-run' } as const;
export const SVC_ANNOTATIONS = { dagName: 'svc.io/dag-name', dagRunId: 'svc.io/dag-run-id', fileName: 'svc.io/file-name' } as const;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

export const isDnsLabel = (s: string): boolean => s.length <= MAX_NAME_LENGTH && DNS_LABEL.test(s);
export const isLabelValue = (s: string): boolean => s.length <= MAX_NAME_LENGTH && LABEL_VALUE.test(s);

const HASH_LENGTH = 13;

/**
 * FNV-1a, 64 bits, over the UTF-8 bytes of the parts joined by NUL: 13 base-36 digits. Computed in two
 * 32-bit halves (the prime is 2^40 + 0x1b3), a few times faster than BigInt arithmetic per byte.
 */
export function identityHash(parts: readonly string[]): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (const byte of new TextEncoder().encode(parts.join('\0'))) {
    lo = (lo ^ byte) >>> 0;
    const low = lo * 0x1b3;
    const carry = Math.floor(low / 0x100000000);
    hi = (hi * 0x1b3 + carry + ((lo << 8) >>> 0)) % 0x100000000;
    lo = low % 0x100000000;
  }
  return ((BigInt(hi) << 32n) | BigInt(lo >>> 0)).toString(36).padStart(HASH_LENGTH, '0');
}

/** Lowercase letters, digits and single `-` inside, at most `max` characters (may be empty). */
export function slug(s: string, max: number): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, max).replace(/^-+|-+$/g, '');
}

/** `prefix-parts-hash`, each readable part cut to its share; the hash is over the exact identity. */
function hashedName(readable: Array<[string, number]>, identity: readonly string[]): string {
  const parts = readable.map(([s, max]) => slug(s, max)).filter(Boolean);
  return [...parts, identityHash(identity)].join('-');
}

/** The object name of a run: `<dag>-<run id>-<hash>` (20 + 28 characters of them at most). */
export function dagRunName(dagName: string, dagRunId: string): string {
  return hashedName([[dagName, 20], [dagRunId, 28]], ['run', dagName, dagRunId]);
}

/** Identity of one execution of a step: a Pod, a process, a log stream. */
export interface ExecIdentity {
  dagName: string;
  dagRunId: string;
  attemptId: string;
  node: string;
  /** Executions of the node started before this one (SPEC 2.3 retries and repeats). */
  attempt: number;
  /** Index of the parallel item, when the step runs one execution per item. */
  item?: number | undefined;
  /**
   * A short command the engine needs the result of (a precondition, a backquote, a dotenv file...),
   * run where the steps run: `<kind><n>-<token>`. `node` is its step, or '' for the run's own.
   */
  probe?: string | undefined;
}

const execParts = (e: ExecIdentity): string[] => [
  'exec', e.dagName, e.dagRunId, e.attemptId, e.node, String(e.attempt), e.item === undefined ? '' : String(e.item),
  ...(e.probe === undefined ? [] : [e.probe]),
];

/** The object name of an execution: `<dag>-<step>-<hash>` (16 + 32 characters of them at most). */
export function execName(e: ExecIdentity): string {
  return hashedName([[e.dagName, 16], [e.node, 32]], execParts(e));
}

/**
 * The object name of a DAG by its REST fileName (`[a-zA-Z0-9_-]+`): the fileName itself when it is
 * already a DNS label, else `<slug>-<hash>`. Lossless with the fileName kept in an annotation, and
 * never equal to another fileName's name (a clean name has no 13-character hash part of that form
 * unless a user chose it, and then the hash differs).
 */
export function dagObjectName(fileName: string): string {
  return isDnsLabel(fileName) ? fileName : hashedName([[fileName, 48]], ['dag', fileName]);
}

/** A label value for any string: itself when valid, else `<slug>-<hash>` (selectors compare these). */
export function labelValue(s: string): string {
  return isLabelValue(s) ? s : hashedName([[s, 48]], ['label', s]);
}

/** The metadata that names a run: object name, selector labels, exact identity in annotations. */
export function dagRunMetadata(key: { dagName: string; dagRunId: string }, root: { name: string; dagRunId: string }, parent?: { name: string; dagRunId: string }): {
  name: string; labels: Record<string, string>; annotations: Record<string, string>;
} {
  return {
    name: dagRunName(key.dagName, key.dagRunId),
    labels: {
      [SVC_LABELS.dag]: labelValue(key.dagName),
      [SVC_LABELS.dagRun]: labelValue(key.dagRunId),
      [SVC_LABELS.root]: dagRunName(root.name, root.dagRunId),
      ...(parent ? { [SVC_LABELS.parent]: dagRunName(parent.name, parent.dagRunId) } : {}),
    },
    annotations: { [SVC_ANNOTATIONS.dagName]: key.dagName, [SVC_ANNOTATIONS.dagRunId]: key.dagRunId },
  };
}
