/**
 * The `kubernetes` block of a DAG and of a step: settings of the step Pods the operator creates
 * (resources, placement, identity, metadata, volumes, security). The schema checks its shape; this file
 * parses it, checks what the schema cannot say, and merges a step's block over the DAG's.
 * The embedded engine ignores the block (`svc validate` says so).
 */
import type { KeyToPath, KubernetesBlock, KubernetesToleration, KubernetesVolume, KubernetesVolumeMount } from './types.js';
import type { Problems } from './errors.js';
import { at, idx } from './errors.js';
import { isDnsLabel, isLabelValue } from '../naming.js';
import type { Obj } from './values.js';
import { compact, isObj, scalarText, str, strList, strMap } from './values.js';

/** The Pod volumes svc adds itself (the entry binary, the data volume). */
export const RESERVED_VOLUMES: readonly string[] = ['svc-entry', 'svc-data'];
/** Label keys svc sets on its Pods and selects them by: never the user's. */
const MANAGED_BY = 'app.kubernetes.io/managed-by';
/** Fields whose maps merge key by key (the step's value wins); every other field is replaced whole. */
const MAP_FIELDS = ['nodeSelector', 'labels', 'annotations'] as const;

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KEY_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/**
 * The step's block over the DAG's, field by field: a field the step sets replaces the DAG's, except the
 * string maps (labels, annotations, nodeSelector), merged key by key with the step's value winning.
 * Lists (tolerations, volumes, volumeMounts, imagePullSecrets) and objects (resources, affinity,
 * securityContext) are replaced whole. Pure; neither input is modified.
 */
export function mergeKubernetes(dag: KubernetesBlock | undefined, step: KubernetesBlock | undefined): KubernetesBlock | undefined {
  if (!dag || !step) return dag ?? step;
  const out: KubernetesBlock = { ...dag, ...step };
  for (const k of MAP_FIELDS) {
    if (dag[k] && step[k]) out[k] = { ...dag[k], ...step[k] };
  }
  return out;
}

/** A written `kubernetes` block as a KubernetesBlock, with the checks the schema cannot make. */
export function parseKubernetes(raw: unknown, path: string, problems: Problems): KubernetesBlock | undefined {
  if (!isObj(raw)) return undefined;
  const block = compact<KubernetesBlock>({
    resources: resources(raw.resources),
    serviceAccountName: str(raw.serviceAccountName),
    nodeSelector: isObj(raw.nodeSelector) ? strMap(raw.nodeSelector) : undefined,
    tolerations: Array.isArray(raw.tolerations) ? raw.tolerations.filter(isObj).map(toleration) : undefined,
    affinity: isObj(raw.affinity) ? raw.affinity : undefined,
    labels: isObj(raw.labels) ? strMap(raw.labels) : undefined,
    annotations: isObj(raw.annotations) ? strMap(raw.annotations) : undefined,
    imagePullSecrets: Array.isArray(raw.imagePullSecrets) ? strList(raw.imagePullSecrets) : undefined,
    volumes: Array.isArray(raw.volumes) ? raw.volumes.filter(isObj).map(volume) : undefined,
    volumeMounts: Array.isArray(raw.volumeMounts) ? raw.volumeMounts.filter(isObj).map(mount) : undefined,
    securityContext: isObj(raw.securityContext) ? raw.securityContext : undefined,
    podSecurityContext: isObj(raw.podSecurityContext) ? raw.podSecurityContext : undefined,
    priorityClassName: str(raw.priorityClassName),
  });
  checkMetadata(block, path, problems);
  checkTolerations(block.tolerations ?? [], at(path, 'tolerations'), problems);
  checkVolumes(raw.volumes, at(path, 'volumes'), problems);
  return block;
}

/**
 * A step's mounts against its volumes once merged with the DAG's block. Only when the step sets
 * volumes or volumeMounts itself: the DAG's own pairs are checked once, at DAG level.
 */
export function checkStepMounts(dag: KubernetesBlock | undefined, step: KubernetesBlock | undefined, path: string, problems: Problems): void {
  if (!step || (step.volumes === undefined && step.volumeMounts === undefined)) return;
  const merged = mergeKubernetes(dag, step) ?? {};
  if (step.volumeMounts !== undefined) {
    checkMounts(merged, at(path, 'volumeMounts'), problems);
    return;
  }
  const declared = new Set((merged.volumes ?? []).map((v) => v.name));
  for (const m of merged.volumeMounts ?? []) {
    if (!declared.has(m.name)) {
      problems.add(at(path, 'volumes'), `does not declare volume "${m.name}", which the DAG's kubernetes.volumeMounts mounts`);
    }
  }
}

/** Each mount of `block` names one of its volumes. */
export function checkMounts(block: KubernetesBlock, path: string, problems: Problems): void {
  const declared = [...new Set((block.volumes ?? []).map((v) => v.name))];
  (block.volumeMounts ?? []).forEach((m, i) => {
    if (declared.includes(m.name)) return;
    const known = declared.length > 0 ? `declared: ${declared.join(', ')}` : 'no volumes are declared';
    problems.add(at(idx(path, i), 'name'), `"${m.name}" is not a declared volume (${known})`);
  });
}

function resources(raw: unknown): KubernetesBlock['resources'] {
  if (!isObj(raw)) return undefined;
  return compact({
    requests: isObj(raw.requests) ? strMap(raw.requests) : undefined,
    limits: isObj(raw.limits) ? strMap(raw.limits) : undefined,
  });
}

function toleration(t: Obj): KubernetesToleration {
  return compact<KubernetesToleration>({
    key: str(t.key), operator: t.operator === 'Exists' || t.operator === 'Equal' ? t.operator : undefined,
    value: str(t.value), effect: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect as string) ? (t.effect as KubernetesToleration['effect']) : undefined,
    tolerationSeconds: typeof t.tolerationSeconds === 'number' ? t.tolerationSeconds : undefined,
  });
}

function keyToPaths(raw: unknown): KeyToPath[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return raw.filter(isObj).map((it) => ({ key: str(it.key) ?? '', path: str(it.path) ?? '' }));
}

function volume(v: Obj): KubernetesVolume {
  const pvc = isObj(v.persistentVolumeClaim) ? v.persistentVolumeClaim : undefined;
  const cm = isObj(v.configMap) ? v.configMap : undefined;
  const sec = isObj(v.secret) ? v.secret : undefined;
  const empty = isObj(v.emptyDir) ? v.emptyDir : undefined;
  return compact<KubernetesVolume>({
    name: str(v.name) ?? '',
    persistentVolumeClaim: pvc && compact({ claimName: str(pvc.claimName) ?? '', readOnly: typeof pvc.readOnly === 'boolean' ? pvc.readOnly : undefined }),
    configMap: cm && compact({ name: str(cm.name) ?? '', items: keyToPaths(cm.items) }),
    secret: sec && compact({ secretName: str(sec.secretName) ?? '', items: keyToPaths(sec.items) }),
    emptyDir: empty && compact({ medium: str(empty.medium), sizeLimit: scalarText(empty.sizeLimit) }),
  });
}

function mount(m: Obj): KubernetesVolumeMount {
  return compact<KubernetesVolumeMount>({
    name: str(m.name) ?? '', mountPath: str(m.mountPath) ?? '', subPath: str(m.subPath),
    readOnly: typeof m.readOnly === 'boolean' ? m.readOnly : undefined,
  });
}

/** `svc.io/...`, `<anything>.svc.io/...` and app.kubernetes.io/managed-by are svc's. */
function reserved(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : '';
  return prefix === 'svc.io' || prefix.endsWith('.svc.io') || key === MANAGED_BY;
}

/** Why `key` is not a valid label or annotation key (`[prefix/]name`), or undefined. */
function keyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return 'its prefix must be a DNS subdomain (lowercase letters, digits, "-" and ".")';
  if (name.length > 63 || !KEY_NAME.test(name)) return 'its name must be at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit';
  return undefined;
}

function checkMetadata(block: KubernetesBlock, path: string, problems: Problems): void {
  const maps: Array<[string, Record<string, string> | undefined, boolean]> = [
    ['labels', block.labels, true], ['annotations', block.annotations, false], ['nodeSelector', block.nodeSelector, true],
  ];
  for (const [field, map, labelValues] of maps) {
    for (const [key, value] of Object.entries(map ?? {})) {
      const where = at(path, field);
      const bad = keyProblem(key);
      if (bad) problems.add(where, `"${key}" is not a valid key: ${bad}`);
      else if (field !== 'nodeSelector' && reserved(key)) {
        problems.add(where, `"${key}" is svc's own: svc sets svc.io/* and ${MANAGED_BY} on its Pods, choose another key`);
      }
      if (labelValues && !isLabelValue(value)) {
        problems.add(at(where, key), `"${value}" is not a valid label value (at most 63 letters, digits, "-", "_" and ".", starting and ending with a letter or digit, or empty)`);
      }
    }
  }
}

function checkTolerations(list: KubernetesToleration[], path: string, problems: Problems): void {
  list.forEach((t, i) => {
    const where = idx(path, i);
    if (t.operator === 'Exists' && t.value) problems.add(at(where, 'value'), 'must be empty with operator Exists');
    if (!t.key && t.operator !== 'Exists') problems.add(at(where, 'operator'), 'must be Exists when key is empty (it then tolerates every taint)');
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') problems.add(at(where, 'tolerationSeconds'), 'needs effect NoExecute');
  });
}

const SOURCES = ['persistentVolumeClaim', 'configMap', 'secret', 'emptyDir'] as const;

function checkVolumes(raw: unknown, path: string, problems: Problems): void {
  if (!Array.isArray(raw)) return;
  const seen = new Set<string>();
  raw.forEach((v, i) => {
    if (!isObj(v)) return;
    const name = str(v.name) ?? '';
    const where = idx(path, i);
    if (RESERVED_VOLUMES.includes(name)) problems.add(at(where, 'name'), `"${name}" is the name of svc's own volume (${RESERVED_VOLUMES.join(', ')} are reserved), choose another`);
    else if (name !== '' && !isDnsLabel(name)) problems.add(at(where, 'name'), `"${name}" is not a valid volume name (at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit)`);
    if (seen.has(name)) problems.add(at(where, 'name'), `"${name}" is declared twice`);
    seen.add(name);
    const sources = SOURCES.filter((s) => v[s] !== undefined);
    if (sources.length !== 1) {
      const found = sources.length === 0 ? 'none given' : `${sources.join(' and ')} given`;
      problems.add(where, `needs exactly one source of ${SOURCES.join(', ')} (${found})`);
    }
  });
}
