/**
 * Container environment as the kubelet builds it: env/envFrom with values from Secrets, ConfigMaps and the
 * downward API, and $(VAR) expansion in env values, command and args.
 */
import type { Container, KeyedData, Pod } from './types.js';

export type Fetch = (kind: 'secrets' | 'configmaps', namespace: string, name: string) => Promise<KeyedData | undefined>;

/** A config error the kubelet reports as CreateContainerConfigError (the Pod waits and retries). */
export class ConfigError extends Error {}

function decoded(obj: KeyedData, kind: 'secrets' | 'configmaps'): Record<string, string> {
  const out: Record<string, string> = {};
  if (kind === 'secrets') {
    for (const [k, v] of Object.entries(obj.data ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  } else {
    Object.assign(out, obj.data ?? {});
    for (const [k, v] of Object.entries(obj.binaryData ?? {})) out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

/** Expands $(NAME) from `vars`; $$ escapes; unknown references stay as written (Kubernetes semantics). */
export function expand(input: string, vars: Record<string, string>): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c === '$' && input[i + 1] === '$') {
      out += '$';
      i++;
    } else if (c === '$' && input[i + 1] === '(') {
      const end = input.indexOf(')', i + 2);
      if (end < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, end);
      out += name in vars ? vars[name] : `$(${name})`;
      i = end;
    } else {
      out += c;
    }
  }
  return out;
}

/** Where a Pod runs, for the downward API: its Node and its IP (hostIP is always 127.0.0.1). */
export interface PodPlace {
  nodeName: string;
  podIP: string;
}

/** A downward API fieldRef of a Pod (env and volumes); throws ConfigError for a field it does not know. */
export function fieldRef(pod: Pod, path: string, at: PodPlace): string {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (m) {
    const map = m[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations;
    return map?.[m[2] ?? ''] ?? '';
  }
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace ?? 'default';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'spec.nodeName':
      return at.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.podIP':
    case 'status.podIPs':
      return at.podIP;
    case 'status.hostIP':
    case 'status.hostIPs':
      return '127.0.0.1';
    default:
      throw new ConfigError(`unsupported fieldRef ${path}`);
  }
}

/** A resourceFieldRef: the container's request or limit as written (no divisor), "0" when unset. */
export function resourceField(c: Container | undefined, resource: string): string {
  const [kind, res] = resource.split('.') as [string, string];
  const v = kind === 'limits' ? c?.resources?.limits?.[res] : c?.resources?.requests?.[res];
  return v ?? '0';
}

export interface EnvContext extends PodPlace {
  pod: Pod;
  fetch: Fetch;
  base: Record<string, string>; // process environment the agent passes through (PATH, ...)
}

/** Builds the environment of one container, or throws ConfigError (missing Secret/ConfigMap/key). */
export async function containerEnv(c: Container, ctx: EnvContext): Promise<Record<string, string>> {
  const ns = ctx.pod.metadata.namespace ?? 'default';
  const cache = new Map<string, Record<string, string> | undefined>();
  const load = async (kind: 'secrets' | 'configmaps', name: string): Promise<Record<string, string> | undefined> => {
    const key = `${kind}/${name}`;
    if (!cache.has(key)) {
      const obj = await ctx.fetch(kind, ns, name);
      cache.set(key, obj ? decoded(obj, kind) : undefined);
    }
    return cache.get(key);
  };
  const kindName = (kind: string): string => (kind === 'secrets' ? 'secret' : 'configmap');
  const vars: Record<string, string> = {};
  for (const src of c.envFrom ?? []) {
    const ref = src.configMapRef ?? src.secretRef;
    if (!ref) continue;
    const kind = src.configMapRef ? 'configmaps' : 'secrets';
    const data = await load(kind, ref.name);
    if (!data) {
      if (ref.optional) continue;
      throw new ConfigError(`${kindName(kind)} "${ref.name}" not found`);
    }
    for (const [k, v] of Object.entries(data)) vars[(src.prefix ?? '') + k] = v;
  }
  for (const e of c.env ?? []) {
    const from = e.valueFrom;
    if (!from) {
      vars[e.name] = expand(e.value ?? '', { ...vars });
      continue;
    }
    const ref = from.secretKeyRef ?? from.configMapKeyRef;
    if (ref) {
      const kind = from.secretKeyRef ? 'secrets' : 'configmaps';
      const data = await load(kind, ref.name);
      if (!data) {
        if (ref.optional) continue;
        throw new ConfigError(`${kindName(kind)} "${ref.name}" not found`);
      }
      if (!(ref.key in data)) {
        if (ref.optional) continue;
        throw new ConfigError(`couldn't find key ${ref.key} in ${kindName(kind)} ${ns}/${ref.name}`);
      }
      vars[e.name] = data[ref.key] ?? '';
    } else if (from.fieldRef) {
      vars[e.name] = fieldRef(ctx.pod, from.fieldRef.fieldPath, ctx);
    } else if (from.resourceFieldRef) {
      vars[e.name] = resourceField(c, from.resourceFieldRef.resource);
    }
  }
  return { ...ctx.base, ...vars };
}
