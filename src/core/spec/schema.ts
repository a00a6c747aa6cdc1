/**
 * The JSON Schema (draft-07) of one DAG YAML document as users write it (SPEC 2.2-2.6, 2.9).
 * One contract for three consumers: the loader validates with it (ajv), the CRD openAPIV3Schema is
 * derived from it, and the UI editor shows its descriptions. It is structural; rules across fields
 * (name lengths, depends, cycles, exclusive fields) are checked by the loader and listed in README.md.
 */
import { blockDefinitions } from './schema-blocks.js';
import { stepDefinitions } from './schema-step.js';

const str = (description: string) => ({ type: 'string', description });
const bool = (description: string) => ({ type: 'boolean', description });
const int = (description: string, minimum: number) => ({ type: 'integer', minimum, description });
const ref = (name: string, description?: string) =>
  description ? { $ref: `#/definitions/${name}`, description } : { $ref: `#/definitions/${name}` };

const scalarOrNull = { type: ['string', 'number', 'boolean', 'null'] };
const oneEntryMap = { type: 'object', minProperties: 1, maxProperties: 1, additionalProperties: scalarOrNull };

const tags = {
  description:
    'Tags: "env=prod team=a", "critical, batch", a map, a list of strings, a list of single-entry maps, or a mixed list.',
  anyOf: [
    { type: 'string' },
    { type: 'object', additionalProperties: scalarOrNull },
    { type: 'array', items: { anyOf: [{ type: 'string' }, oneEntryMap] } },
  ],
};

const params = {
  description: 'Parameters: "a b K=v" (positional and named), a map NAME: default, or a list of names, NAME=default and NAME: default.',
  anyOf: [
    { type: 'string' },
    { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null', 'object', 'array'] } },
    { type: 'array', items: { anyOf: [{ type: ['string', 'number', 'boolean'] }, { type: 'object' }] } },
  ],
};

const schedule = {
  description: '5-field cron expressions, each optionally prefixed CRON_TZ=<zone> or TZ=<zone>.',
  anyOf: [
    { type: 'string' },
    { type: 'array', items: { type: 'string' } },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        start: ref('stringOrList', 'Start the DAG.'),
        stop: ref('stringOrList', 'Stop the DAG.'),
        restart: ref('stringOrList', 'Restart the DAG.'),
      },
    },
  ],
};

const steps = {
  description: 'Steps: a list (nested lists run in parallel in chain mode) or a map name -> step.',
  anyOf: [
    { type: 'array', items: { anyOf: [ref('stepItem'), { type: 'array', items: ref('stepItem') }] } },
    { type: 'object', additionalProperties: ref('stepItem') },
  ],
};

const dagProperties = {
  name: str('DAG name (default: the file name). At most 40 characters of letters, digits, _, . and -.'),
  description: str('Text.'),
  group: str('Grouping label.'),
  tags,
  type: { type: 'string', enum: ['chain', 'graph'], description: 'chain (default): list steps run in order; graph: by depends only.' },
  schedule,
  skipIfSuccessful: bool('Skip a scheduled start when already succeeded since the previous tick (default false).'),
  restartWaitSec: int('Seconds to wait before restart (default 0).', 0),
  maxActiveRuns: int('Concurrent runs of this DAG (default 1; -1 unlimited).', -1),
  maxActiveSteps: int('Parallel steps (default 1).', 0),
  timeoutSec: int('Workflow timeout; 0 means none.', 0),
  delaySec: int('Delay before start (default 0).', 0),
  maxCleanUpTimeSec: int('Maximum cleanup time on stop (default 5).', 0),
  preconditions: ref('preconditions', 'Conditions checked before any step; unmet aborts the run.'),
  precondition: ref('preconditions', 'Alias of preconditions.'),
  runConfig: {
    type: 'object',
    additionalProperties: false,
    description: 'Start dialog options.',
    properties: {
      disableParamEdit: bool('Users cannot edit parameters when starting (default false).'),
      disableRunIdEdit: bool('Users cannot edit the run id when starting (default false).'),
    },
  },
  queue: str('Queue name.'),
  workerSelector: ref('scalarMap', 'Labels a worker must carry, exact case-sensitive values.'),
  kubernetes: ref('kubernetes', 'Settings of every step Pod (kubernetes backend only); a step block overrides them field by field.'),
  params,
  env: ref('env', 'Environment variables of the run.'),
  secrets: { type: 'array', items: ref('secret'), description: 'Secrets (SPEC 2.4).' },
  dotenv: ref('stringOrList', 'KEY=VALUE files; .env is prepended unless the value is an empty list.'),
  workingDir: str('Working directory (default: directory of the DAG file).'),
  shell: ref('shell', 'Default shell of the steps.'),
  logDir: str('Log directory.'),
  logOutput: { type: 'string', enum: ['separate', 'merged'], description: 'separate (default) or merged stdout/stderr.' },
  histRetentionDays: int('Days of history kept (default 30; 0 delete after each run; -1 forever).', -1),
  maxOutputSize: int('Maximum captured output per step in bytes (default 1048576).', 1),
  container: ref('container', 'DAG-level container; steps run inside it.'),
  registryAuths: ref('registryAuths'),
  ssh: ref('ssh', 'DAG-level SSH defaults; steps without a type run over SSH.'),
  llm: ref('llm'),
  redis: ref('redis'),
  s3: ref('s3'),
  smtp: ref('smtp'),
  otel: ref('otel'),
  mailOn: ref('mailOn'),
  errorMail: ref('mail', 'Mail sent on failure.'),
  infoMail: ref('mail', 'Mail sent on success.'),
  waitMail: ref('mail', 'Mail sent when waiting for approval.'),
  handlerOn: ref('handlerOn'),
  skipBaseHandlers: bool('Do not inherit the parent handler configuration.'),
  steps,
};

export const DAG_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://svc.dev/schemas/dag.json',
  title: 'DAG definition',
  description: 'One YAML document of a DAG file (SPEC 2.2). Further documents are local sub-DAGs with their own name.',
  type: 'object',
  additionalProperties: false,
  properties: dagProperties,
  definitions: { ...blockDefinitions, ...stepDefinitions },
} as const;
