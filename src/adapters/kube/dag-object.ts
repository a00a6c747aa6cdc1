/**
 * A Dag resource as the KubeDagStore reads and writes it: the REST fileName it stands for, its
 * DagFileInfo, the text it gives back, and the object a write sends. Pure.
 *
 * The text a user writes is kept in an annotation (so a PUT comes back as written, comments kept)
 * together with a hash of the spec it was written with. The annotation is bound to the spec, never
 * trusted for itself: it is the text only while its own spec (re-parsed as a write derives it) is
 * exactly the stored spec (boundText). Anyone who may write a Dag can compute the hash, so a text
 * that says something else than the spec (a forged annotation, or a spec changed behind the store's
 * back with `kubectl apply` / `kubectl edit`) is ignored and the spec's own text (dagTextOf) is read.
 * What admission validates and what runs is therefore always the spec (docs/adr/0025).
 */
import { createHash } from 'node:crypto';
import { dagObjectName, identityHash, SVC_ANNOTATIONS } from '../../core/naming.js';
import type { DagFileInfo } from '../../core/ports/dag-store.js';
import { API_VERSION } from '../../core/resources.js';
import { parseDagText } from '../../core/spec/load.js';
import { isValidFileName } from '../../core/spec/names.js';
import { BadRequestError } from '../../core/errors.js';
import type { KubeObject } from './client.js';
import { dagSpecOf, dagTextOf } from './manifest.js';

type Obj = Record<string, unknown>;

export interface DagObject extends KubeObject {
  metadata: Omit<KubeObject['metadata'], 'managedFields'> & { managedFields?: { time?: string; subresource?: string }[] };
  spec?: Obj;
  status?: { suspended?: boolean };
}

/** The text as written, and the hash of the spec it was stored with. */
export const SOURCE_ANNOTATIONS = { text: 'svc.io/source', specHash: 'svc.io/source-spec-hash' } as const;

/** The API server refuses an object whose annotations (keys and values, in bytes) total more. */
export const MAX_ANNOTATION_BYTES = 256 * 1024;

/** kubectl's client-side apply record: it names the object it came from, so a renamed copy drops it. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Keys sorted, nulls dropped: the API server prunes null fields of a structural schema, so a spec
 * read back must hash like the spec that was sent.
 */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isObj(v)) return v;
  return Object.fromEntries(Object.keys(v).sort().filter((k) => v[k] != null).map((k) => [k, canonical(v[k])]));
}

export const specHash = (spec: unknown): string => identityHash(['dag-spec', JSON.stringify(canonical(spec ?? {}))]);

/**
 * The fileName a Dag stands for: its annotation when that maps back to the object's name, else the
 * name itself (a Dag applied without the annotation); undefined when no fileName reaches the object
 * (a name with dots, or longer than a DNS label).
 */
export function fileNameOf(obj: DagObject): string | undefined {
  const { name, annotations } = obj.metadata;
  const annotated = annotations?.[SVC_ANNOTATIONS.fileName];
  if (annotated && isValidFileName(annotated) && dagObjectName(annotated) === name) return annotated;
  return isValidFileName(name) && dagObjectName(name) === name ? name : undefined;
}

/** The latest change of anything but status (a suspend flag is no edit of the DAG), else creation. */
export function updatedAtOf(obj: DagObject): string {
  const times = (obj.metadata.managedFields ?? []).filter((f) => f.subresource !== 'status').map((f) => Date.parse(f.time ?? ''));
  const latest = Math.max(...times.filter((t) => !Number.isNaN(t)));
  const t = Number.isFinite(latest) ? latest : Date.parse(obj.metadata.creationTimestamp ?? '');
  return new Date(Number.isNaN(t) ? 0 : t).toISOString();
}

export function infoOf(fileName: string, obj: DagObject): DagFileInfo {
  return { fileName, stamp: stampOf(obj), updatedAt: updatedAtOf(obj) };
}

/** Stamps of the objects seen (a watch cache hands out one object per version): hashed once each. */
const stamps = new WeakMap<DagObject, string>();

/**
 * What the text depends on, and no more: the object (uid), its spec (generation: status and metadata
 * writes leave it alone) and the text annotations. Not the resourceVersion, which every status write
 * moves (a suspend flag, the operator's nextRun and lastRun) and with it every parsed DAG a catalog
 * keeps by stamp.
 */
export function stampOf(obj: DagObject): string {
  const known = stamps.get(obj);
  if (known !== undefined) return known;
  const { uid, generation, resourceVersion, annotations = {} } = obj.metadata;
  const text = annotations[SOURCE_ANNOTATIONS.text];
  const source = createHash('sha256').update(text === undefined ? '-' : `+${text}`).update(`\0${annotations[SOURCE_ANNOTATIONS.specHash] ?? ''}`);
  const stamp = generation === undefined ? `rv-${resourceVersion ?? ''}` : `${uid ?? ''}.${generation}.${source.digest('base64url').slice(0, 16)}`;
  stamps.set(obj, stamp);
  return stamp;
}

/** Texts of the objects seen, bound or not: re-parsed once per object version. */
const texts = new WeakMap<DagObject, string>();

/**
 * The annotation text when it is bound to the spec: a write of that text would store exactly this spec
 * (specOfText; the hash first, a cheap refusal). A text that loads is then the spec itself, comments and
 * layout aside; one that does not load is bound only to the empty spec the store keeps it with, which
 * runs nothing (a DAG with errors is refused at every start, and its errors are reported). Else undefined.
 */
function boundText(obj: DagObject): string | undefined {
  const a = obj.metadata.annotations ?? {};
  const text = a[SOURCE_ANNOTATIONS.text];
  const hash = specHash(obj.spec);
  if (text === undefined || a[SOURCE_ANNOTATIONS.specHash] !== hash) return undefined;
  return specHash(specOfText(text, fileNameOf(obj) ?? 'dag')) === hash ? text : undefined;
}

/** The DAG text of a Dag: as written through the store while bound to the spec, else the spec's. */
export function textOf(obj: DagObject): string {
  const known = texts.get(obj);
  if (known !== undefined) return known;
  const text = boundText(obj) ?? dagTextOf(obj.spec ?? {});
  texts.set(obj, text);
  return text;
}

export const isSuspendedDag = (obj: DagObject | undefined): boolean => obj?.status?.suspended === true;

/**
 * The spec of a DAG text: the DAG's fields when it loads without errors, else empty. The store keeps
 * what users write, as the file store does; readers report what is wrong with it.
 */
export function specOfText(text: string, fileName: string): Obj {
  const parsed = parseDagText(text, fileName);
  if (parsed.errors.length > 0) return {};
  try {
    const { spec, errors } = dagSpecOf(text, parsed);
    return errors.length > 0 ? {} : (spec ?? {});
  } catch {
    return {};
  }
}

function annotationBytes(annotations: Record<string, string>): number {
  return Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
}

/**
 * The object a write sends: `base` (the stored Dag, for a compare-and-swap replace) with the new spec
 * and text; everything else of base's metadata (labels, owners, finalizers) is kept.
 */
export function dagObject(fileName: string, text: string, spec: Obj, base?: DagObject): DagObject {
  const annotations = {
    ...base?.metadata.annotations,
    [SVC_ANNOTATIONS.fileName]: fileName,
    [SOURCE_ANNOTATIONS.text]: text,
    [SOURCE_ANNOTATIONS.specHash]: specHash(spec),
  };
  const bytes = annotationBytes(annotations);
  if (bytes > MAX_ANNOTATION_BYTES) {
    throw new BadRequestError(`DAG ${fileName} is too large to store as a Dag resource: its text is ${Buffer.byteLength(text)} bytes, and an object's annotations hold at most ${MAX_ANNOTATION_BYTES} bytes (256 KiB) in all`, { fileName, bytes });
  }
  const { managedFields: _managed, ...metadata } = base?.metadata ?? { name: dagObjectName(fileName) };
  return { apiVersion: API_VERSION, kind: 'Dag', metadata: { ...metadata, annotations }, spec };
}

/** A copy of `obj` under another fileName (rename): same spec, text and labels; a new object. */
export function renamedDag(obj: DagObject, fileName: string): DagObject {
  const { [LAST_APPLIED]: _applied, ...annotations } = obj.metadata.annotations ?? {};
  const metadata = { name: dagObjectName(fileName), ...(obj.metadata.labels ? { labels: obj.metadata.labels } : {}), annotations: { ...annotations, [SVC_ANNOTATIONS.fileName]: fileName } };
  return { apiVersion: API_VERSION, kind: 'Dag', metadata, spec: obj.spec ?? {} };
}
