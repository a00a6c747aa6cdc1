/** One YAML document (already schema-checked) to a DagDefinition with every default of SPEC 2.2, 2.3 and 8. */
import { checkStepConfigs } from './step-configs.js';
import { checkMailNotifications } from './step-configs/mail.js';
import type { DagDefinition, SecretRef } from './types.js';
import { HANDLER_KINDS, HANDLER_STEP_NAMES } from './types.js';
import type { Problems } from './errors.js';
import { at } from './errors.js';
import {
  parseContainer, parseLlm, parseMail, parseOtel, parseRedis, parseS3, parseSmtp, parseSsh,
} from './blocks.js';
import { parseHandlers } from './handlers.js';
import { checkMounts, parseKubernetes } from './kubernetes.js';
import { dagNameProblem } from './names.js';
import { parseDotenv, parseEnv, parseParams, parseShell } from './params.js';
import { parsePreconditions } from './policies.js';
import { parseSchedule } from './schedule.js';
import type { DagDefaults } from './step-kind.js';
import { parseSteps } from './steps.js';
import { parseTags } from './tags.js';
import type { Obj } from './values.js';
import { bool, compact, int, isObj, str, strMap } from './values.js';

export const DAG_DEFAULTS = {
  maxActiveRuns: 1, maxActiveSteps: 1, maxCleanUpTimeSec: 5, histRetentionDays: 30, maxOutputSize: 1048576,
  timeoutSec: 0, delaySec: 0, restartWaitSec: 0,
} as const;

function secrets(raw: unknown): SecretRef[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObj).map((s) => ({
    name: str(s.name) ?? '', provider: str(s.provider) ?? '', key: str(s.key) ?? '', options: strMap(s.options),
  }));
}

function registryAuths(raw: unknown): DagDefinition['registryAuths'] {
  const out: DagDefinition['registryAuths'] = {};
  if (!isObj(raw)) return out;
  for (const [host, v] of Object.entries(raw)) {
    if (isObj(v)) out[host] = { username: str(v.username) ?? '', password: str(v.password) ?? '' };
  }
  return out;
}

function dagName(doc: Obj, fallback: string, problems: Problems): string {
  const name = str(doc.name) ?? fallback;
  const problem = dagNameProblem(name);
  if (problem) problems.add('name', doc.name === undefined ? `the file name "${name}" is not a valid DAG name: ${problem}` : problem);
  return name;
}

function integers(doc: Obj): Pick<DagDefinition, keyof typeof DAG_DEFAULTS> {
  const out = { ...DAG_DEFAULTS } as Record<keyof typeof DAG_DEFAULTS, number>;
  for (const k of Object.keys(DAG_DEFAULTS) as Array<keyof typeof DAG_DEFAULTS>) out[k] = int(doc[k], DAG_DEFAULTS[k]);
  return out;
}

function checkExclusive(doc: Obj, problems: Problems): void {
  if (doc.container !== undefined && doc.ssh !== undefined) problems.add('ssh', 'cannot be combined with container at DAG level');
  if (doc.preconditions !== undefined && doc.precondition !== undefined) {
    problems.add('precondition', 'alias of preconditions: use only one of them');
  }
}

function connections(doc: Obj, problems: Problems): Partial<DagDefinition> {
  return {
    container: parseContainer(doc.container, 'container', problems), registryAuths: registryAuths(doc.registryAuths),
    ssh: parseSsh(doc.ssh), llm: parseLlm(doc.llm), redis: parseRedis(doc.redis), s3: parseS3(doc.s3),
    smtp: parseSmtp(doc.smtp), otel: parseOtel(doc.otel), errorMail: parseMail(doc.errorMail),
    infoMail: parseMail(doc.infoMail), waitMail: parseMail(doc.waitMail),
  };
}

function checkHitlWorkers(dag: DagDefinition, problems: Problems): void {
  if (dag.workerSelector && dag.steps.some((s) => s.type === 'hitl')) {
    problems.add('workerSelector', 'not allowed in a DAG with hitl steps');
  }
}

/** A handler's run node is named onExit, onFailure, ...: a step of that name would be mistaken for it. */
function checkHandlerNames(dag: DagDefinition, problems: Problems): void {
  const names = new Set(dag.steps.map((s) => s.name));
  for (const kind of HANDLER_KINDS) {
    const name = HANDLER_STEP_NAMES[kind];
    if (dag.handlerOn[kind] && names.has(name)) {
      problems.add(at('handlerOn', kind), `"${name}" is also the name of a step: a step and a handler cannot share it, rename the step`);
    }
  }
}

/** Builds the definition; problems are added to `problems` (the definition is best effort when there are some). */
export function buildDag(doc: Obj, defaultName: string, problems: Problems): DagDefinition {
  checkExclusive(doc, problems);
  const kubernetes = parseKubernetes(doc.kubernetes, 'kubernetes', problems);
  if (kubernetes) checkMounts(kubernetes, 'kubernetes.volumeMounts', problems);
  const defaults: DagDefaults = { container: doc.container !== undefined, ssh: doc.ssh !== undefined, ...(kubernetes ? { kubernetes } : {}) };
  const type = doc.type === 'graph' ? 'graph' : 'chain';
  const mailOn = isObj(doc.mailOn) ? doc.mailOn : {};
  const runConfig = isObj(doc.runConfig) ? doc.runConfig : {};
  const dag = compact<DagDefinition>({
    name: dagName(doc, defaultName, problems), description: str(doc.description), group: str(doc.group),
    tags: parseTags(doc.tags, 'tags', problems), type, schedule: parseSchedule(doc.schedule, 'schedule', problems),
    skipIfSuccessful: bool(doc.skipIfSuccessful, false), ...integers(doc),
    preconditions: parsePreconditions(doc.preconditions ?? doc.precondition, doc.preconditions !== undefined ? 'preconditions' : 'precondition', problems),
    runConfig: { disableParamEdit: bool(runConfig.disableParamEdit, false), disableRunIdEdit: bool(runConfig.disableRunIdEdit, false) },
    queue: str(doc.queue), workerSelector: isObj(doc.workerSelector) ? strMap(doc.workerSelector) : undefined, kubernetes,
    params: parseParams(doc.params, 'params', problems), env: parseEnv(doc.env, 'env', problems), secrets: secrets(doc.secrets),
    dotenv: parseDotenv(doc.dotenv), workingDir: str(doc.workingDir), shell: parseShell(doc.shell), logDir: str(doc.logDir),
    logOutput: doc.logOutput === 'merged' ? 'merged' : 'separate',
    ...(connections(doc, problems) as Pick<DagDefinition, 'registryAuths'>),
    mailOn: { success: bool(mailOn.success, false), failure: bool(mailOn.failure, false), wait: bool(mailOn.wait, false) },
    handlerOn: parseHandlers(doc.handlerOn, defaults, problems), skipBaseHandlers: bool(doc.skipBaseHandlers, false),
    steps: parseSteps(doc.steps, type === 'chain', defaults, problems),
  });
  // A `steps` of the wrong type was already reported by the schema.
  const stepsUsable = doc.steps === undefined || Array.isArray(doc.steps) || isObj(doc.steps);
  if (dag.steps.length === 0 && stepsUsable) problems.add('steps', 'at least one step is required');
  checkHitlWorkers(dag, problems);
  checkStepConfigs(dag, problems);
  checkMailNotifications(dag, problems);
  checkHandlerNames(dag, problems);
  return dag;
}
