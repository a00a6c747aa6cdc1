/**
 * What runs inside the container for a step: the argv of each command (the block's `shell` with the
 * command as its last argument; else the step's or DAG's shell if one was written, else `/bin/sh -e`:
 * the host's default shell may not exist in the image), the environment, user and working directory.
 */
import { isAbsolute } from 'node:path';
import { commandArgvs } from '../../../core/exec-argv.js';
import type { ExecRequest } from '../../../core/ports/executor.js';
import type { ContainerConfig } from '../../../core/spec/types.js';

/** Variables of svc's own machine that mean nothing in a container (its image has its own). */
const HOST_ONLY = new Set(['PATH', 'HOME', 'SHELL', 'PWD', 'TMPDIR', 'USER', 'LOGNAME']);

const IMAGE_SHELL = ['/bin/sh', '-e'];

/** Argv per command; `scriptPath` is where the step's script was put inside the container. */
export function containerArgvs(req: ExecRequest, c: ContainerConfig, scriptPath?: string): string[][] {
  if (c.shell.length > 0) {
    if (scriptPath !== undefined) return [[...c.shell, req.commands[0] ? `${req.commands[0]} ${scriptPath}` : scriptPath]];
    return req.commands.map((cmd) => [...c.shell, cmd]);
  }
  const shell = req.shellExplicit ? req.shell : IMAGE_SHELL;
  // A script with a shebang runs as itself only when no shell was written (as on the host).
  return commandArgvs({ ...req, shell }, scriptPath);
}

/** True when the step has commands of its own to run (else the block's `command`, or the image itself). */
export const hasStepCommands = (req: ExecRequest): boolean => req.commands.length > 0 || req.script !== undefined;

/** The step's environment for the container: the block's env first (exec mode), the step's over it. */
export function execEnv(req: ExecRequest, systemEnv: Record<string, string | undefined>, blockEnv: string[] = []): string[] {
  const out = [...blockEnv];
  for (const [k, v] of Object.entries(req.env)) {
    if (HOST_ONLY.has(k) && systemEnv[k] === v) continue;
    out.push(`${k}=${v}`);
  }
  return out;
}

/**
 * The working directory inside the container: a step's own absolute `workingDir`, else the block's
 * (a relative or inherited one names a directory of svc's machine, not of the container).
 */
export function execWorkingDir(req: ExecRequest, c: ContainerConfig): string | undefined {
  return req.step.workingDir && isAbsolute(req.step.workingDir) ? req.workingDir : c.workingDir;
}
