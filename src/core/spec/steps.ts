/**
 * The steps of a DAG (SPEC 2.2, 2.3): list or map form, generated names, unique names and ids,
 * depends resolved to names (ids allowed), chain order injected, and dependency cycles reported.
 */
import type { StepDefinition } from './types.js';
import type { Problems } from './errors.js';
import { at, idx, stepLabel } from './errors.js';
import { MAX_STEP_NAME_LENGTH } from './names.js';
import type { DagDefaults } from './step-kind.js';
import { parseStep, stepObject } from './step.js';
import type { Obj } from './values.js';
import { isObj, str } from './values.js';

interface Entry {
  raw: Obj;
  /** Path with the written name, e.g. `steps[1] (build)` or `steps.build`. */
  path: string;
  /** Position in the top-level list (members of a nested group share it); -1 in map form. */
  pos: number;
  /** Name from the map key (map form). */
  key?: string;
}

function listEntries(raw: unknown[]): Entry[] {
  return raw.flatMap((item, i): Entry[] => {
    const group = Array.isArray(item) ? item.map((sub, j): [unknown, string] => [sub, idx(idx('steps', i), j)]) : [[item, idx('steps', i)] as [unknown, string]];
    return group.flatMap(([v, path]) => {
      const o = stepObject(v);
      return o ? [{ raw: o, path: stepLabel(path, o.name), pos: i }] : [];
    });
  });
}

function collectEntries(raw: unknown): Entry[] {
  if (Array.isArray(raw)) return listEntries(raw);
  if (!isObj(raw)) return [];
  return Object.entries(raw).flatMap(([key, v]): Entry[] => {
    const o = stepObject(v);
    return o ? [{ raw: o, path: at('steps', key), pos: -1, key }] : [];
  });
}

/** Generated name like the reference: cmd_N, script_N, dag_N or <type>_N (N = 1-based position). */
function generatedName(raw: Obj, n: number, taken: Set<string>): string {
  const type = str(raw.type) ?? (isObj(raw.executor) ? str(raw.executor.type) : str(raw.executor));
  const prefix = type && type !== 'shell' && type !== 'command' ? type
    : raw.call !== undefined || raw.run !== undefined ? 'dag'
      : raw.script !== undefined ? 'script' : raw.command !== undefined ? 'cmd' : 'step';
  const base = `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_${n}`;
  let name = base;
  for (let k = 2; taken.has(name); k++) name = `${base}_${k}`;
  return name;
}

function assignNames(entries: Entry[], problems: Problems): string[] {
  const taken = new Set(entries.map((e) => str(e.raw.name) ?? e.key).filter((n): n is string => n !== undefined));
  const seen = new Set<string>();
  return entries.map((e, i) => {
    const given = str(e.raw.name) ?? e.key;
    const name = given ?? generatedName(e.raw, i + 1, taken);
    taken.add(name);
    if (seen.has(name)) problems.add(at(e.path, 'name'), `duplicate step name "${name}"`);
    if (given !== undefined && e.key !== undefined && name.length > MAX_STEP_NAME_LENGTH) {
      problems.add(e.path, `step name must be at most ${MAX_STEP_NAME_LENGTH} characters long`);
    }
    seen.add(name);
    return name;
  });
}

function checkIds(steps: StepDefinition[], entries: Entry[], problems: Problems): Map<string, string> {
  const ids = new Map<string, string>();
  const names = new Set(steps.map((s) => s.name));
  steps.forEach((s, i) => {
    if (s.id === undefined) return;
    const where = at((entries[i] as Entry).path, 'id');
    if (ids.has(s.id)) problems.add(where, `duplicate step id "${s.id}"`);
    else if (names.has(s.id) && s.id !== s.name) problems.add(where, `"${s.id}" is the name of another step`);
    ids.set(s.id, s.name);
  });
  return ids;
}

function resolveDepends(steps: StepDefinition[], entries: Entry[], ids: Map<string, string>, problems: Problems): void {
  const names = new Set(steps.map((s) => s.name));
  steps.forEach((s, i) => {
    const resolved: string[] = [];
    for (const dep of s.depends) {
      const name = names.has(dep) ? dep : ids.get(dep);
      if (name === undefined) problems.add(at((entries[i] as Entry).path, 'depends'), `unknown step "${dep}"`);
      else if (!resolved.includes(name)) resolved.push(name);
    }
    s.depends = resolved;
  });
}

/** Chain mode: a list step without its own `depends` waits for every step at the previous position. */
function injectChain(steps: StepDefinition[], entries: Entry[]): void {
  let previous: string[] = [];
  let current: string[] = [];
  let pos = -1;
  steps.forEach((s, i) => {
    const e = entries[i] as Entry;
    if (e.pos < 0) return;
    if (e.pos !== pos) {
      previous = current;
      current = [];
      pos = e.pos;
    }
    current.push(s.name);
    if (e.raw.depends === undefined) s.depends = [...previous];
  });
}

/**
 * Every dependency cycle once, as `a -> b -> a` where `x -> y` reads "x depends on y".
 * Iterative depth-first search, so long chains cannot overflow the call stack.
 */
export function findCycles(steps: Array<Pick<StepDefinition, 'name' | 'depends'>>): string[] {
  const deps = new Map(steps.map((s) => [s.name, s.depends]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles = new Map<string, string>();
  for (const root of deps.keys()) {
    if (state.has(root)) continue;
    const path: string[] = [root];
    const next: number[] = [0];
    state.set(root, 'visiting');
    while (path.length > 0) {
      const name = path[path.length - 1] as string;
      const i = next[next.length - 1] as number;
      const d = (deps.get(name) ?? [])[i];
      if (d === undefined) {
        state.set(name, 'done');
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = i + 1;
      if (state.get(d) === 'visiting') {
        const loop = path.slice(path.indexOf(d));
        cycles.set([...loop].sort().join('\u0000'), [...loop, d].join(' -> '));
      } else if (!state.has(d) && deps.has(d)) {
        state.set(d, 'visiting');
        path.push(d);
        next.push(0);
      }
    }
  }
  return [...cycles.values()];
}

/** Parses `steps` (list or map); `chain` injects the implicit order of list steps. */
export function parseSteps(raw: unknown, chain: boolean, dag: DagDefaults, problems: Problems): StepDefinition[] {
  const entries = collectEntries(raw);
  const names = assignNames(entries, problems);
  const steps = entries.map((e, i) => parseStep(e.raw, names[i] as string, e.path, dag, problems));
  const ids = checkIds(steps, entries, problems);
  resolveDepends(steps, entries, ids, problems);
  if (chain) injectChain(steps, entries);
  for (const cycle of findCycles(steps)) problems.add('steps', `dependency cycle: ${cycle}`);
  return steps;
}
