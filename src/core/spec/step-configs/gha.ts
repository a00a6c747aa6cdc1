/**
 * Load-time check of gha steps (SPEC 2.6): the action to run and the runner image act starts it in.
 * The action is `./path` (in the working directory), `owner/repo[/path]@ref` or `docker://image`, as a
 * workflow's `uses:` takes it. Values written as `${VAR}` count as given. The schema already takes params
 * as a string or a map only.
 */
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';

const LOCAL = /^\.\.?\/\S*$/;
const REMOTE = /^[\w.-]+\/[\w.-]+(\/\S+)?@\S+$/;
const DOCKER = /^docker:\/\/\S+$/;

function actionProblem(commands: string[]): string | undefined {
  const action = commands[0]?.trim();
  if (!action) return 'is required for gha steps (the action: ./path, owner/repo@ref or docker://image)';
  if (action.includes('$') || LOCAL.test(action) || REMOTE.test(action) || DOCKER.test(action)) return undefined;
  return `"${action}" is not an action reference: ./path, owner/repo[/path]@ref or docker://image`;
}

export const checkGha: ConfigCheck = (config, step) => {
  const problems: ConfigProblem[] = [];
  const action = actionProblem(step.commands);
  if (action) problems.push({ field: 'command', message: action });
  const runner = config.runner;
  if (typeof runner !== 'string' || runner.trim() === '') {
    problems.push({ field: 'config.runner', message: 'is required for gha steps (the image act runs the action in)' });
  }
  return problems;
};
