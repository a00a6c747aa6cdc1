/**
 * What a `gha` step needs before act starts (gha.ts): the action's inputs from the step's `params`, the
 * act binary, the container engine's address, the one-job workflow that uses the action, and act's
 * command line. Everything missing is a StepError that names it and says how to provide it.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { execName, type ExecIdentity } from '../../core/naming.js';
import { parseParamString } from '../../core/spec/params.js';
import { expandVars } from '../../core/vars/expand.js';
import { StepError } from './runner.js';

type Env = Record<string, string | undefined>;

/** The platform label of the job: act maps it to `config.runner` with `-P`, whatever the image is called. */
export const RUNNER_LABEL = 'svc-runner';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function inputText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/**
 * The action's inputs (`with:`): the step's `params`, a map or a string of `NAME=value` pairs. The engine
 * leaves step params as written, so `${VAR}` is expanded here from the step's environment.
 */
export function actionInputs(params: unknown, env: Record<string, string>): Record<string, string> {
  const expand = (s: string): string => expandVars(s, (n) => env[n]);
  if (params === undefined || params === null || params === '') return {};
  if (isObject(params)) return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? expand(v) : inputText(v)]));
  if (typeof params !== 'string') throw new StepError('gha step: params must be a map of action inputs or a string of NAME=value pairs');
  const defs = parseParamString(params);
  const unnamed = defs.find((d) => d.name === undefined);
  if (unnamed) throw new StepError(`gha step: params "${unnamed.default ?? ''}" is not NAME=value: action inputs have names`);
  return Object.fromEntries(defs.map((d) => [d.name!, expand(d.default ?? '')]));
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The act binary: SVC_ACT_BIN (the step's environment, else svc's), else `act` on the step's PATH.
 * `sys` is svc's own environment (runners run in the engine's process).
 */
export function findAct(env: Env, sys: Env): string {
  const named = env.SVC_ACT_BIN || sys.SVC_ACT_BIN;
  if (named) {
    if (executable(named)) return named;
    throw new StepError(`gha step: SVC_ACT_BIN=${named} is not an executable file (act runs gha steps; hack/act.sh builds it)`);
  }
  const path = env.PATH ?? sys.PATH ?? '';
  for (const dir of path.split(delimiter)) {
    if (dir && isAbsolute(dir) && executable(join(dir, 'act'))) return join(dir, 'act');
  }
  throw new StepError('gha step: act (github.com/nektos/act) is not installed: no act on PATH and SVC_ACT_BIN is not set. Install act, or build it with hack/act.sh and set SVC_ACT_BIN to its path');
}

/** Where to look, in order, when DOCKER_HOST is not set (the embedded container launcher's list). */
function defaultSockets(env: Env): string[] {
  const xdg = env.XDG_RUNTIME_DIR;
  return ['/var/run/docker.sock', ...(xdg ? [`${xdg}/podman/podman.sock`, `${xdg}/docker.sock`] : []), '/run/podman/podman.sock'];
}

/**
 * The container engine act talks to, as a DOCKER_HOST value: DOCKER_HOST of the step's environment
 * (a DAG may set it in `env`), else svc's, else the first of the usual sockets that exists. A unix
 * socket that does not exist is reported here; whether the engine answers is act's to say.
 */
export function findEngine(env: Env, sys: Env): string {
  const host = env.DOCKER_HOST || sys.DOCKER_HOST;
  if (host) {
    if (host.startsWith('unix://') && !existsSync(host.slice('unix://'.length))) {
      throw new StepError(`gha step: no container engine: DOCKER_HOST=${host} names no socket. Start Docker, or Podman's API service (podman system service), on that socket`);
    }
    return host;
  }
  const tried = defaultSockets({ ...sys, ...env });
  const found = tried.find((p) => existsSync(p));
  if (found) return `unix://${found}`;
  throw new StepError(`gha step: no container engine: DOCKER_HOST is not set and none of ${tried.join(', ')} exists. Start Docker, or Podman's API service (podman system service), and point DOCKER_HOST at its socket`);
}

/**
 * The workflow act runs: one job on the runner's platform label, one step that uses the action with
 * the inputs. JSON is YAML, so no value needs YAML quoting. Its name is the execution's deterministic
 * name, which act puts in its container's name: two steps running at once never share a container.
 */
export function workflowText(action: string, inputs: Record<string, string>, identity: ExecIdentity): string {
  const step = { uses: action, ...(Object.keys(inputs).length > 0 ? { with: inputs } : {}) };
  return `${JSON.stringify({ name: `svc-${execName(identity)}`, on: 'workflow_dispatch', jobs: { action: { 'runs-on': RUNNER_LABEL, steps: [step] } } }, null, 2)}\n`;
}

export interface ActCall {
  workflow: string;
  workingDir: string;
  runner: string;
  /** A path that does not exist: act's default .env, .secrets, .input and .vars files are not read. */
  none: string;
}

/**
 * act's arguments. `--bind` mounts the working directory into the job container, where a local action
 * (`uses: ./path`) is read from; `--pull=false` pulls the runner image only when the engine lacks it;
 * `--rm` removes the job container after a failure too (act keeps it by default, running, for a look
 * inside); `--json` lets gha.ts tell the action's output from act's progress lines. The cache server is off: a
 * step runs one action, and the server would listen on a port for nothing.
 */
export function actArgs(c: ActCall): string[] {
  return [
    'workflow_dispatch', '-W', c.workflow, '-C', c.workingDir, '-P', `${RUNNER_LABEL}=${c.runner}`,
    '--pull=false', '--bind', '--rm', '--json', '--no-cache-server',
    '--env-file', c.none, '--secret-file', c.none, '--input-file', c.none, '--var-file', c.none,
  ];
}
