/**
 * The config a step of a given type runs with (SPEC 2.2, 2.6): the step's `config` with the DAG-level
 * connection block of its type applied as the spec says. ssh: a step-level block replaces the DAG one
 * wholly; s3 and redis: step fields override the DAG block field by field; mail: the DAG's smtp block
 * comes along under `smtp`; container: the DAG's registryAuths under `registryAuths`; chat: the step's
 * `llm` block (or else the DAG's: a step-level block replaces it wholly) under `llm` and its `messages`
 * under `messages`, so both are expanded like any config string. Other types: the step's config as written.
 */
import type { DagDefinition, StepDefinition } from './types.js';

type Config = Record<string, unknown>;

export function effectiveConfig(def: DagDefinition, step: StepDefinition): Config {
  const config = { ...step.config };
  switch (step.type) {
    case 'ssh': return { ...config, ...(step.ssh ?? def.ssh ?? {}) };
    case 's3': return { ...def.s3, ...config };
    case 'redis': return { ...def.redis, ...config };
    case 'mail': return def.smtp ? { ...config, smtp: { ...def.smtp } } : config;
    // The DAG's registry credentials reach the launcher that pulls the step's image (SPEC 2.2, 2.5).
    case 'container': return Object.keys(def.registryAuths).length > 0 ? { ...config, registryAuths: structuredClone(def.registryAuths) } : config;
    case 'chat': {
      const llm = step.llm ?? def.llm;
      return { ...config, ...(llm ? { llm: structuredClone(llm) } : {}), messages: step.messages.map((m) => ({ ...m })) };
    }
    default: return config;
  }
}

/** Every string in a config value (nested objects and lists included) through `f`; other values as they are. */
export function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}
