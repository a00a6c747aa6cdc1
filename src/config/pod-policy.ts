/**
 * SVC_POD_POLICY (config file `podPolicy`): how this install widens the pod policy of steps
 * (core/spec/pod-policy.ts). JSON (the chart's `podPolicy` value): `{serviceAccounts, priorityClasses,
 * secrets, claims, capabilities, tolerationKeys: [names], root: boolean}`, every key optional. Unset: the
 * default policy, nothing beyond it. A widening is never silent: `widenings` lists it, and the API
 * server and the operator log it at start.
 */
import { DEFAULT_POD_POLICY, type PodPolicy } from '../core/spec/pod-policy.js';
import { ConfigError } from './values.js';

const NAME_LISTS = ['serviceAccounts', 'priorityClasses', 'secrets', 'claims', 'capabilities', 'tolerationKeys'] as const;
type NameList = (typeof NAME_LISTS)[number];

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const CAPABILITY = /^[A-Z][A-Z0-9_]*$/;
const TAINT_KEY = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Why one entry of a list is not valid there, or undefined. */
function entryProblem(list: NameList, v: string): string | undefined {
  if (list === 'capabilities') return CAPABILITY.test(v) ? undefined : 'is not a capability name (NET_BIND_SERVICE, SYS_PTRACE, ...; without CAP_)';
  if (list === 'tolerationKeys') return TAINT_KEY.test(v) ? undefined : 'is not a taint key';
  const prefixOk = list === 'secrets' || list === 'claims';
  const name = prefixOk && v.endsWith('*') ? v.slice(0, -1).replace(/[-.]$/, 'x') : v;
  // A bare `*` would let steps mount every Secret of the namespace, svc's own and service-account tokens among them.
  if (name === '') return 'is a bare "*": list names, or prefixes of at least one character ("team-a-*")';
  return name.length <= 253 && DNS_SUBDOMAIN.test(name) ? undefined : `is not an object name${prefixOk ? ' or a prefix ending in "*"' : ''}`;
}

function names(raw: Record<string, unknown>, list: NameList): string[] {
  const v = raw[list];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ConfigError(`SVC_POD_POLICY: ${list} must be a list of names`);
  for (const x of v as string[]) {
    const bad = entryProblem(list, x);
    if (bad) throw new ConfigError(`SVC_POD_POLICY: ${list}: "${x}" ${bad}`);
  }
  return v as string[];
}

/** The install's policy: the default, widened by SVC_POD_POLICY (env) or `podPolicy` (file). */
export function loadPodPolicy(env: NodeJS.ProcessEnv, file: Partial<Record<string, unknown>> = {}): PodPolicy {
  const text = env.SVC_POD_POLICY?.trim();
  let raw: unknown = file.podPolicy;
  if (text) {
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`SVC_POD_POLICY: not JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  if (raw === undefined || raw === null) return DEFAULT_POD_POLICY;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError('SVC_POD_POLICY: must be a map (serviceAccounts, priorityClasses, secrets, claims, capabilities, tolerationKeys, root)');
  const o = raw as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => k !== 'root' && !(NAME_LISTS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new ConfigError(`SVC_POD_POLICY: unknown key ${unknown.join(', ')} (known: ${[...NAME_LISTS, 'root'].join(', ')})`);
  if (o.root !== undefined && typeof o.root !== 'boolean') throw new ConfigError('SVC_POD_POLICY: root must be true or false');
  const lists = Object.fromEntries(NAME_LISTS.map((l) => [l, names(o, l)])) as Record<NameList, string[]>;
  return { ...lists, root: o.root === true };
}

/** What the policy allows beyond the default, one line each (empty: the default policy). */
export function widenings(p: PodPolicy): string[] {
  const out = NAME_LISTS.filter((l) => p[l].length > 0).map((l) => `${l}: ${p[l].join(', ')}`);
  return p.root ? [...out, 'root: steps may run as root'] : out;
}
