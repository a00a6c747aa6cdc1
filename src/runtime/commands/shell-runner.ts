/** Runs short commands (preconditions, backquotes, repeat conditions) and returns exit code and stdout. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { CommandResult, CommandRunner } from '../../core/ports/engine-ports.js';

const MAX_STDOUT = 1024 * 1024;

export class ShellCommandRunner implements CommandRunner {
  run(command: string, opts: { cwd: string; env: Record<string, string>; shell: string[]; timeoutMs?: number }): Promise<CommandResult> {
    const shell = opts.shell.length > 0 ? opts.shell : ['/bin/sh'];
    return new Promise((resolve) => {
      let child: ChildProcess;
      try {
        child = spawn(shell[0]!, [...shell.slice(1), '-c', command], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
      } catch {
        return resolve({ exitCode: 127, stdout: '' });
      }
      let out = '';
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (d: string) => { if (out.length < MAX_STDOUT) out += d; });
      const timer = opts.timeoutMs ? setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, opts.timeoutMs) : undefined;
      child.on('error', () => { if (timer) clearTimeout(timer); resolve({ exitCode: 127, stdout: '' }); });
      child.on('close', (code) => { if (timer) clearTimeout(timer); resolve({ exitCode: code ?? 1, stdout: out }); });
    });
  }
}
