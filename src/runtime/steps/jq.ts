/**
 * The `jq` step type (SPEC 2.6): the jq program of `command` over the JSON of `script`, by jq itself
 * (compiled to WebAssembly). Each result on its own line, indented by 4 as the reference prints them;
 * `config.raw` prints strings unquoted and other values compact, one per line.
 */
import { raw as jq } from 'jq-wasm';
import { StepError, type StepRunner } from './runner.js';

export const runJq: StepRunner = async ({ req, io }) => {
  const filter = req.commands[0];
  if (filter === undefined) throw new StepError('jq step: command (the jq expression) is required');
  const input = req.script ?? '';
  try {
    JSON.parse(input);
  } catch (e) {
    throw new StepError(`jq step: script is not JSON: ${(e as Error).message}`);
  }
  const flags = req.config.raw === true ? ['-r', '-c'] : ['--indent', '4'];
  let output: string;
  try {
    output = await jq(input, filter, flags);
  } catch (e) {
    throw new StepError((e as Error).message.trim());
  }
  io.out(output.endsWith('\n') || output === '' ? output : `${output}\n`);
  return { exitCode: 0 };
};
