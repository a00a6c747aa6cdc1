/** JSON Schema definitions of a step and its policies (SPEC 2.3, 2.6, 2.7). Part of DAG_SCHEMA (schema.ts). */

const str = (description: string) => ({ type: 'string', description });
const bool = (description: string) => ({ type: 'boolean', description });
const nonNegInt = (description: string) => ({ type: 'integer', minimum: 0, description });
const ref = (name: string, description?: string) =>
  description ? { $ref: `#/definitions/${name}`, description } : { $ref: `#/definitions/${name}` };

/** Step `type` values as written (aliases included: command, docker, github_action, github-action). */
export const STEP_TYPE_VALUES = [
  'shell', 'command', 'ssh', 's3', 'http', 'archive', 'mail', 'jq', 'redis', 'chat', 'hitl', 'dag',
  'gha', 'github_action', 'github-action', 'container', 'docker', 'postgres', 'sqlite',
] as const;

const stepProperties = {
  name: { type: 'string', minLength: 1, maxLength: 40, description: 'Step name (generated when omitted). At most 40 characters.' },
  id: str('Identifier used in references such as ${id.stdout}; letters, digits, _ and -, starting with a letter.'),
  description: str('Text.'),
  type: { type: 'string', enum: STEP_TYPE_VALUES, description: 'Step type (default shell, or the DAG container/ssh).' },
  config: { type: 'object', description: 'Type-specific settings.' },
  executor: {
    description: 'Older form of type/config: a type name or {type, config}. Cannot be mixed with type/config.',
    anyOf: [
      { type: 'string', enum: STEP_TYPE_VALUES },
      {
        type: 'object',
        additionalProperties: false,
        required: ['type'],
        properties: { type: { type: 'string', enum: STEP_TYPE_VALUES }, config: { type: 'object' } },
      },
    ],
  },
  command: {
    description: 'Command line, or a list run in sequence (shell, container and ssh steps). A multi-line string is a script.',
    anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
  },
  script: str('Inline script; honours a shebang when no shell is set.'),
  call: str('Name of a DAG to run as a sub-DAG.'),
  run: str('Deprecated alias of call.'),
  params: {
    description: 'Sub-DAG parameters (string such as "A=1 B=2") or executor inputs (object).',
    anyOf: [{ type: 'string' }, { type: 'object' }],
  },
  depends: ref('stringOrList', 'Names or ids of the steps this step waits for; [] opts out of the chain order.'),
  dir: str('Deprecated alias of workingDir.'),
  workingDir: str('Working directory (default the DAG workingDir).'),
  shell: ref('shell', 'Shell for this step (run as written).'),
  stdout: str('Also write stdout to this file.'),
  stderr: str('Also write stderr to this file (must differ from stdout).'),
  logOutput: { type: 'string', enum: ['separate', 'merged'], description: 'Overrides the DAG logOutput.' },
  output: ref('output'),
  env: ref('env', 'Step variables.'),
  timeoutSec: nonNegInt('Step time cap in seconds; overrides the DAG timeout for this step.'),
  signalOnStop: str('Signal sent on stop (default SIGTERM).'),
  mailOnError: bool('Mail on step error (default false).'),
  container: ref('container', 'Step-level container.'),
  llm: ref('llm', 'LLM settings of a chat step.'),
  messages: { type: 'array', items: ref('chatMessage'), description: 'Chat messages of a chat step.' },
  parallel: ref('parallel'),
  preconditions: ref('preconditions'),
  precondition: ref('preconditions', 'Alias of preconditions.'),
  continueOn: ref('continueOn'),
  retryPolicy: ref('retryPolicy'),
  repeatPolicy: ref('repeatPolicy'),
  workerSelector: ref('scalarMap', 'Labels a worker must carry (values compared as text).'),
  kubernetes: ref('kubernetes', 'Settings of this step\'s Pods (kubernetes backend only), over the DAG block field by field.'),
};

export const stepDefinitions = {
  step: {
    type: 'object',
    description: 'A step.',
    additionalProperties: false,
    properties: stepProperties,
  },
  stepItem: {
    description: 'A step object, or a bare command string.',
    anyOf: [{ type: 'string' }, ref('step')],
  },
  output: {
    description: 'Capture trimmed stdout into a variable: NAME, $NAME, or {name, key, omit}.',
    anyOf: [
      { type: 'string', minLength: 1 },
      {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: str('Variable name.'),
          key: str('Key in outputs.json (default: camelCase of name).'),
          omit: bool('Usable in the DAG but left out of outputs.json (default false).'),
        },
      },
    ],
  },
  chatMessage: {
    type: 'object',
    additionalProperties: false,
    required: ['role', 'content'],
    properties: {
      role: { type: 'string', enum: ['system', 'user', 'assistant'] },
      content: str('Text; ${VAR} is expanded.'),
    },
  },
  parallel: {
    description: 'Fan-out of a sub-DAG call: a list of items, a ${VAR} reference, or {items, maxConcurrent}.',
    anyOf: [
      { type: 'array', maxItems: 1000, items: ref('parallelItem') },
      { type: 'string' },
      {
        type: 'object',
        additionalProperties: false,
        required: ['items'],
        properties: {
          items: {
            anyOf: [{ type: 'array', maxItems: 1000, items: ref('parallelItem') }, { type: 'string' }],
            description: 'Items (at most 1000) or a ${VAR} reference.',
          },
          maxConcurrent: { type: 'integer', minimum: 1, description: 'Concurrent runs (default no limit).' },
        },
      },
    ],
  },
  parallelItem: { type: ['string', 'number', 'boolean', 'object'], description: 'One item; the variable ITEM.' },
  continueOn: {
    description: 'When dependents may run after this step: "skipped", "failed", or an object.',
    anyOf: [
      { type: 'string', enum: ['skipped', 'failed', 'failure'] },
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          failure: bool('Continue after failure.'),
          failed: bool('Alias of failure.'),
          skipped: bool('Continue after a skip.'),
          exitCode: ref('intOrList', 'Continue when the exit code is listed.'),
          output: ref('stringOrList', 'Continue when stdout contains a text or matches a re: pattern.'),
          markSuccess: bool('Record the failed step as succeeded.'),
        },
      },
    ],
  },
  retryPolicy: {
    type: 'object',
    description: 'Retries of a failed step; wait = intervalSec * backoff^attempt, capped at maxIntervalSec.',
    additionalProperties: false,
    properties: {
      limit: nonNegInt('Maximum retries.'),
      intervalSec: nonNegInt('Seconds before the first retry (default 0).'),
      backoff: ref('backoff'),
      maxIntervalSec: nonNegInt('Cap of the interval; 0 means none.'),
      exitCode: ref('intOrList', 'Exit codes retried (default any non-zero).'),
    },
  },
  repeatPolicy: {
    type: 'object',
    description: 'Repeated execution: while the condition/exit code matches, or until it matches.',
    additionalProperties: false,
    properties: {
      repeat: {
        description: 'true (repeat while the step succeeds), while, or until.',
        anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['while', 'until'] }],
      },
      intervalSec: nonNegInt('Seconds between executions.'),
      backoff: ref('backoff'),
      maxIntervalSec: nonNegInt('Cap of the interval; 0 means none.'),
      limit: nonNegInt('Maximum executions; 0 means no limit.'),
      condition: str('Command or expression evaluated after each execution.'),
      expected: str('Expected value of condition (re: prefix for a regular expression).'),
      exitCode: ref('intOrList', 'Exit codes that count as a match.'),
    },
  },
  handlerOn: {
    type: 'object',
    description: 'Lifecycle handlers, each a step definition.',
    additionalProperties: false,
    properties: {
      init: ref('step', 'Runs before the steps; failure aborts the run.'),
      success: ref('step', 'Runs when the run succeeded.'),
      failure: ref('step', 'Runs when the run failed.'),
      abort: ref('step', 'Runs when the run was aborted.'),
      cancel: ref('step', 'Deprecated alias of abort.'),
      wait: ref('step', 'Runs when the run waits for approval.'),
      exit: ref('step', 'Always runs at the end.'),
    },
  },
} as const;
