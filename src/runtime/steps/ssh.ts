/**
 * The `ssh` step type (SPEC 2.2, 2.6): the step's command lines (in turn, stopping at the first
 * failure) or its script run on a remote host over SSH (ssh2). stdout and stderr stay apart; the remote
 * exit status is the step's exit code. Connection settings: the step's config, or the DAG-level ssh
 * block when the step has none (settings.ts). What runs remotely: ssh/remote.ts.
 *
 * No environment is sent: servers accept few variables (OpenSSH: AcceptEnv, LANG/LC_* by default), and
 * the reference sends none either. `${VAR}` references in the command and script (params, env, secrets,
 * outputs of earlier steps) are substituted before the text is sent; `$VAR` of names the step does not
 * define is left to the remote shell.
 */
import { homedir } from 'node:os';
import { authWays } from './ssh/auth.js';
import { connect } from './ssh/connect.js';
import { execLine, type ExecLine } from './ssh/exec.js';
import { commandLine, remoteDir, scriptLine } from './ssh/remote.js';
import { endpoint, sshSettings, type SshSettings } from './ssh/settings.js';
import { StepError, type StepRun, type StepRunner } from './runner.js';

function execLines({ req }: StepRun, s: SshSettings): ExecLine[] {
  const dir = remoteDir(req.step.workingDir, req.workingDir);
  if (req.script !== undefined) {
    const interpreter = req.commands[0];
    return [{ line: scriptLine({ script: req.script, ...(interpreter ? { interpreter } : {}), ...(s.shell ? { shell: s.shell } : {}), ...(dir ? { dir } : {}) }), stdin: req.script }];
  }
  return req.commands.map((c) => ({ line: commandLine(c, s.shell, dir) }));
}

export const runSsh: StepRunner = async (run) => {
  const { req, io, signal } = run;
  // The step's HOME (the engine's environment for steps), else this process's.
  const home = req.env.HOME || homedir();
  const s = sshSettings(req.config, home, req.workingDir);
  const lines = execLines(run, s);
  if (lines.length === 0) throw new StepError('ssh step: a command or a script is required');
  const ways = await authWays(s, home);
  const client = await connect(s, ways, signal);
  try {
    for (const line of lines) {
      const outcome = await execLine(client, line, io, { signal, stopSignal: req.step.signalOnStop || 'SIGTERM', at: endpoint(s) });
      if (outcome.exitCode !== 0 || signal.aborted) return outcome;
    }
    return { exitCode: 0 };
  } finally {
    client.end();
    // On a stop, a server that does not answer the disconnect must not hold the socket open.
    if (signal.aborted) setTimeout(() => client.destroy(), 1000).unref();
  }
};
