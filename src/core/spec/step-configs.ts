/**
 * Load-time checks of a step type's config (SPEC 2.6): what a type needs to run at all (a method and a
 * URL, a host, a bucket...) is reported by `svc validate`, POST /dags and the admission webhook, not
 * discovered when the step runs. Each check sees the effective config (step-config.ts: the DAG-level
 * connection block applied) before expansion: a field written as `${VAR}` counts as given.
 */
import { at, idx, stepLabel, type Problems } from './errors.js';
import { effectiveConfig } from './step-config.js';
import type { DagDefinition, StepDefinition, StepType } from './types.js';
import { checkArchive } from './step-configs/archive.js';
import { checkChat } from './step-configs/chat.js';
import { checkGha } from './step-configs/gha.js';
import { checkMail } from './step-configs/mail.js';
import { checkRedis } from './step-configs/redis.js';
import { checkPostgres, checkSqlite } from './step-configs/sql.js';
import { checkS3 } from './step-configs/s3.js';
import { checkSsh } from './step-configs/ssh.js';

/** One problem of a step's config: the field (relative to the step, e.g. `config.bucket` or `command`) and why. */
export interface ConfigProblem {
  field: string;
  message: string;
}

export type ConfigCheck = (config: Record<string, unknown>, step: StepDefinition) => ConfigProblem[];

const METHOD_URL = /^\s*\S+\s+\S+\s*$/;

const checkHttp: ConfigCheck = (_config, step) =>
  step.commands.length === 1 && METHOD_URL.test(step.commands[0]!) ? [] : [{ field: 'command', message: 'must be "<METHOD> <url>" for http steps' }];

const checkJq: ConfigCheck = (_config, step) => [
  ...(step.commands.length === 1 ? [] : [{ field: 'command', message: 'is required for jq steps (the jq expression)' }]),
  ...(step.script !== undefined ? [] : [{ field: 'script', message: 'is required for jq steps (the JSON input)' }]),
];

export const CONFIG_CHECKS: Partial<Record<StepType, ConfigCheck>> = {
  http: checkHttp,
  jq: checkJq,
  mail: checkMail,
  ssh: checkSsh,
  redis: checkRedis,
  postgres: checkPostgres,
  sqlite: checkSqlite,
  s3: checkS3,
  archive: checkArchive,
  chat: checkChat,
};

/** Checks of the types that run only embedded (not as `svc run-step`): gha needs a local container engine. */
export const EMBEDDED_CONFIG_CHECKS: Partial<Record<StepType, ConfigCheck>> = {
  gha: checkGha,
};

/** Adds the config problems of every step and handler of the DAG. */
export function checkStepConfigs(dag: DagDefinition, problems: Problems, checks = { ...CONFIG_CHECKS, ...EMBEDDED_CONFIG_CHECKS }): void {
  const report = (path: string, step: StepDefinition): void => {
    const check = checks[step.type];
    if (!check) return;
    for (const p of check(effectiveConfig(dag, step), step)) problems.add(at(path, p.field), p.message);
  };
  dag.steps.forEach((s, i) => report(stepLabel(idx('steps', i), s.name), s));
  for (const [kind, s] of Object.entries(dag.handlerOn)) if (s) report(at('handlerOn', kind), s);
}
