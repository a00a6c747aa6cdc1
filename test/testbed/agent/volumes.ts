/**
 * A Pod's volumes as directories under its scratch dir (there is no mount namespace, so `mountPath` is
 * not honoured; see `linkMounts` for the one exception):
 * - emptyDir: a directory;
 * - configMap, secret, downwardAPI and projected (serviceAccountToken through the TokenRequest API,
 *   configMap, secret, downwardAPI sources): their files written there, once;
 * - persistentVolumeClaim: a link to one directory per claim shared by every agent of the test bed;
 * - image: a link to the local directory the agent's `images` map gives the image's repository.
 * A volume that cannot be set up yet (a missing Secret, claim, ServiceAccount) says why; the runner
 * reports FailedMount and retries, as the kubelet does.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { fieldRef, resourceField, type Fetch, type PodPlace } from './env.js';
import { imageRepository } from './images.js';
import type { ObjectMeta } from './kube.js';
import type { Container, DownwardAPIFile, KeyedData, KeyToPath, Pod, ProjectedSource, Volume } from './types.js';

/** The TokenRequest spec the kubelet sends for a serviceAccountToken source. */
export interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds: number;
  boundObjectRef: { apiVersion: 'v1'; kind: 'Pod'; name: string; uid: string };
}

export interface VolumeDeps extends PodPlace {
  fetch: Fetch;
  /** A PersistentVolumeClaim, or undefined when it does not exist. */
  getClaim: (namespace: string, name: string) => Promise<{ metadata: ObjectMeta } | undefined>;
  /** POST serviceaccounts/{name}/token; resolves the token. */
  requestToken: (namespace: string, serviceAccount: string, spec: TokenRequestSpec) => Promise<string>;
  /** Shared directory of the claims: `<claimsDir>/<namespace>/<claimName>`. */
  claimsDir?: string;
  images: Record<string, string>;
  /** A problem that does not stop the Pod (reported as a FailedMount event). */
  warn: (message: string) => void;
}

/** Why a volume cannot be set up yet (the kubelet's FailedMount message, retried). */
class MountError extends Error {}

const ns = (pod: Pod): string => pod.metadata.namespace ?? 'default';

/** Sets up volume `v` in `dir`; resolves undefined when done, or the reason it must be retried. */
export async function setUpVolume(pod: Pod, v: Volume, dir: string, deps: VolumeDeps): Promise<string | undefined> {
  try {
    if (v.image) return void imageVolume(v.image.reference, dir, deps);
    if (v.persistentVolumeClaim) return void (await claimVolume(pod, v.persistentVolumeClaim.claimName, dir, deps));
    const sources = projectedSources(v);
    const files = new Map<string, Buffer>();
    for (const src of sources) await addSource(pod, src, files, deps);
    fs.mkdirSync(dir, { recursive: true });
    for (const [rel, content] of files) {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** configMap, secret and downwardAPI volumes are projected volumes of one source; emptyDir has none. */
function projectedSources(v: Volume): ProjectedSource[] {
  if (v.projected) return v.projected.sources ?? [];
  if (v.configMap) return [{ configMap: v.configMap }];
  if (v.secret) return [{ secret: { ...v.secret, name: v.secret.secretName } }];
  if (v.downwardAPI) return [{ downwardAPI: v.downwardAPI }];
  return [];
}

async function addSource(pod: Pod, src: ProjectedSource, files: Map<string, Buffer>, deps: VolumeDeps): Promise<void> {
  if (src.configMap) await addKeyed(pod, 'configmaps', src.configMap, files, deps);
  if (src.secret) await addKeyed(pod, 'secrets', src.secret, files, deps);
  for (const item of src.downwardAPI?.items ?? []) files.set(item.path, Buffer.from(downwardValue(pod, item, deps)));
  const token = src.serviceAccountToken;
  if (token) files.set(token.path, Buffer.from(await serviceAccountToken(pod, token, deps)));
}

async function addKeyed(pod: Pod, kind: 'secrets' | 'configmaps', ref: { name: string; optional?: boolean; items?: KeyToPath[] }, files: Map<string, Buffer>, deps: VolumeDeps): Promise<void> {
  const obj = await deps.fetch(kind, ns(pod), ref.name);
  if (!obj) {
    if (ref.optional) return;
    throw new MountError(`${kind === 'secrets' ? 'secret' : 'configmap'} "${ref.name}" not found`);
  }
  const data = keyedData(obj, kind);
  for (const it of ref.items ?? Object.keys(data).map((key) => ({ key, path: key }))) {
    const content = data[it.key];
    if (content) files.set(it.path, content);
  }
}

function keyedData(obj: KeyedData, kind: 'secrets' | 'configmaps'): Record<string, Buffer> {
  const data: Record<string, Buffer> = {};
  for (const [k, val] of Object.entries(obj.data ?? {})) data[k] = kind === 'secrets' ? Buffer.from(val, 'base64') : Buffer.from(val);
  for (const [k, val] of Object.entries(obj.binaryData ?? {})) data[k] = Buffer.from(val, 'base64');
  return data;
}

/** A downward API file: a field (whole label/annotation maps as `key="value"` lines) or a resource. */
function downwardValue(pod: Pod, item: DownwardAPIFile, deps: VolumeDeps): string {
  const field = item.fieldRef?.fieldPath;
  if (field === 'metadata.labels' || field === 'metadata.annotations') {
    const map = (field === 'metadata.labels' ? pod.metadata.labels : pod.metadata.annotations) ?? {};
    return Object.keys(map)
      .sort()
      .map((k) => `${k}=${JSON.stringify(map[k])}`)
      .join('\n');
  }
  if (field) return fieldRef(pod, field, deps);
  const res = item.resourceFieldRef;
  if (!res) return '';
  return resourceField(pod.spec.containers.find((c) => c.name === res.containerName) ?? pod.spec.containers[0], res.resource);
}

async function serviceAccountToken(pod: Pod, src: NonNullable<ProjectedSource['serviceAccountToken']>, deps: VolumeDeps): Promise<string> {
  const m = pod.metadata;
  const sa = pod.spec.serviceAccountName ?? 'default';
  const spec: TokenRequestSpec = {
    ...(src.audience ? { audiences: [src.audience] } : {}),
    expirationSeconds: src.expirationSeconds ?? 3600,
    boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: m.name, uid: m.uid ?? '' },
  };
  try {
    return await deps.requestToken(ns(pod), sa, spec);
  } catch (e) {
    throw new MountError(`failed to fetch token: ${statusMessage(e as Error)}`);
  }
}

/** The message of a Kubernetes Status in an API error's body, else the error's message. */
function statusMessage(e: Error & { body?: string }): string {
  try {
    return (JSON.parse(e.body ?? '') as { message?: string }).message ?? e.message;
  } catch {
    return e.message;
  }
}

/** `<claimsDir>/<namespace>/<claimName>`: the one directory every Pod mounting the claim shares. */
export function claimDir(claimsDir: string, namespace: string, claim: string): string {
  return path.join(claimsDir, namespace, claim);
}

/** Waits for the claim to exist (not for it to be bound: nothing provisions), then links its directory. */
async function claimVolume(pod: Pod, claim: string, dir: string, deps: VolumeDeps): Promise<void> {
  const pvc = await deps.getClaim(ns(pod), claim);
  if (!pvc) throw new MountError(`persistentvolumeclaim "${claim}" not found`);
  if (pvc.metadata.deletionTimestamp) throw new MountError(`persistentvolumeclaim "${claim}" is being deleted`);
  if (!deps.claimsDir) throw new MountError('the agent has no directory for claims (agent config "claimsDir")');
  const shared = claimDir(deps.claimsDir, ns(pod), claim);
  fs.mkdirSync(shared, { recursive: true });
  if (!fs.existsSync(dir)) fs.symlinkSync(shared, dir);
}

function imageVolume(reference: string, dir: string, deps: VolumeDeps): void {
  const local = deps.images[imageRepository(reference)];
  if (local && fs.existsSync(local)) {
    if (!fs.existsSync(dir)) fs.symlinkSync(local, dir);
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  deps.warn(`the test bed maps no local directory to image ${reference} (agent config "images")`);
}

/** Whether `p` lies strictly under directory `dir`. */
function under(p: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), p);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * Honours a volume's mountPath where it is safe: an absolute mountPath under the host's temp directory
 * whose parent exists becomes a symlink to the volume's directory (plus subPath): a claim's shared
 * directory, or this Pod's own for other volumes. An existing path is left alone, except a dangling link
 * (to the volume of a Pod that is gone), which is replaced; links are never removed (they outlive the Pod).
 */
export function linkMounts(pod: Pod, c: Container, scratch: string, tmp = os.tmpdir()): void {
  for (const m of c.volumeMounts ?? []) {
    const v = pod.spec.volumes?.find((x) => x.name === m.name);
    const at = path.resolve(m.mountPath);
    if (!v || !path.isAbsolute(m.mountPath) || !under(at, tmp) || !fs.existsSync(path.dirname(at))) continue;
    if (fs.existsSync(at)) continue;
    if (exists(at)) fs.rmSync(at); // dangling
    const volume = path.join(scratch, m.name);
    if (!exists(volume)) continue;
    const target = path.join(fs.realpathSync(volume), m.subPath ?? '');
    fs.mkdirSync(target, { recursive: true });
    try {
      fs.symlinkSync(target, at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/** Exists, even as a dangling link. */
function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** API server and the CA to trust, for kubeconfigs of service-account tokens. */
export interface TokenServer {
  server: string;
  /** CA used when the volume projects no `ca.crt`. */
  caFile: string;
}

/**
 * For a projected volume holding a serviceAccountToken: writes a kubeconfig with the token (inline), the
 * volume's ca.crt and the Pod's namespace to `<scratch>/.svc-testbed/kubeconfig-<volume>` and returns its
 * path; undefined for any other volume.
 */
export function writeTokenKubeconfig(pod: Pod, v: Volume, scratch: string, api: TokenServer): string | undefined {
  const sources = v.projected?.sources ?? [];
  const token = sources.find((s) => s.serviceAccountToken)?.serviceAccountToken;
  if (!token) return undefined;
  const dir = path.join(scratch, v.name);
  const caItem = sources.map((s) => s.configMap?.items?.find((i) => i.key === 'ca.crt')?.path ?? (s.configMap && !s.configMap.items ? 'ca.crt' : undefined)).find(Boolean);
  const ca = caItem && fs.existsSync(path.join(dir, caItem)) ? path.join(dir, caItem) : api.caFile;
  const sa = pod.spec.serviceAccountName ?? 'default';
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'svc-testbed', cluster: { server: api.server, 'certificate-authority': ca } }],
    users: [{ name: `serviceaccount-${sa}`, user: { token: fs.readFileSync(path.join(dir, token.path), 'utf8') } }],
    contexts: [{ name: 'svc-testbed', context: { cluster: 'svc-testbed', user: `serviceaccount-${sa}`, namespace: ns(pod) } }],
    'current-context': 'svc-testbed',
  };
  const file = path.join(scratch, '.svc-testbed', `kubeconfig-${v.name}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, YAML.stringify(config), { mode: 0o600 });
  return file;
}
