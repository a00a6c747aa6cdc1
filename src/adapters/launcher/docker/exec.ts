/**
 * One command run inside a running container through the engine's exec API (never its entrypoint):
 * output demultiplexed into stdout and stderr, the exit code read once the exec has ended. Stopping
 * signals the exec's process by its host pid, which the engine reports: the Docker API has no call to
 * signal an exec, and a local engine's processes are this machine's.
 */
import { readlink } from 'node:fs/promises';
import type Docker from 'dockerode';
import { Demuxer } from './demux.js';
import type { ExecOutputs } from './outputs.js';

export interface ExecSpec {
  argv: string[];
  env: string[];
  user?: string | undefined;
  workingDir?: string | undefined;
}

export interface RunningCommand {
  /** The exit code; rejects when the engine refused the exec. */
  readonly done: Promise<number>;
  signal(sig: string): void;
}

export interface ExecHooks {
  /** The exec exists (before it starts): a crash from here on leaves something to adopt. */
  created?(execId: string): void;
  /** Signalling a process failed (not ours to signal, or gone). */
  warn?(text: string): void;
  /**
   * Where the process cannot be signalled (an engine on another machine), the container itself is, when
   * it is the step's own: its end ends the exec.
   */
  ownContainer?: boolean;
}

export function runExec(container: Docker.Container, spec: ExecSpec, outputs: ExecOutputs, hooks: ExecHooks = {}): RunningCommand {
  let exec: Docker.Exec | undefined;
  let pending: string | undefined;
  let ended = false;
  const signal = (sig: string): void => {
    if (ended) return;
    if (!exec) { pending = sig; return; }
    void signalExec(exec, container, sig).catch(async (e: Error) => {
      if (hooks.ownContainer && await container.kill({ signal: sig }).then(() => true, () => false)) return;
      hooks.warn?.(`cannot signal the step's process: ${e.message}`);
    });
  };
  const done = (async () => {
    exec = await container.exec({
      Cmd: spec.argv, Env: spec.env, AttachStdin: false, AttachStdout: true, AttachStderr: true, Tty: false,
      ...(spec.user ? { User: spec.user } : {}), ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
    });
    hooks.created?.(exec.id);
    const stream = await exec.start({ hijack: true, stdin: false, Detach: false, Tty: false });
    if (pending) signal(pending);
    await drain(stream, outputs);
    const code = await exitCode(exec);
    ended = true;
    return code;
  })();
  return { done, signal };
}

/** Demultiplexes the exec's stream into the outputs until the engine closes it. */
export function drain(stream: NodeJS.ReadableStream, outputs: ExecOutputs): Promise<void> {
  const demux = new Demuxer((which, data) => outputs.write(which, data));
  return new Promise<void>((resolve) => {
    stream.on('data', (chunk: Buffer) => demux.push(chunk));
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
}

/** The stream can close a moment before the engine records the exit: ask until it has. */
export async function exitCode(exec: Docker.Exec): Promise<number> {
  for (let i = 0; ; i++) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null && info.ExitCode !== undefined) return info.ExitCode;
    await new Promise((r) => setTimeout(r, Math.min(200, 5 * 2 ** Math.min(i, 6))));
  }
}

/**
 * The exec's process group (or the process alone when it leads none), by the host pid the engine reports,
 * once this machine's process of that pid is seen inside the container (the same pid namespace as the
 * container's own process, not ours): an engine elsewhere (a VM, a remote host) reports pids of its own
 * machine, which must never reach a process here.
 */
export async function signalExec(exec: Docker.Exec, container: Docker.Container, sig: string): Promise<void> {
  const info = await exec.inspect();
  if (!info.Running || !info.Pid) return;
  const init = (await container.inspect()).State.Pid;
  if (!(await sameContainer(info.Pid, init))) throw new Error(`process ${info.Pid} of the engine is not on this machine (the engine runs elsewhere): the step runs until it ends`);
  try {
    process.kill(-info.Pid, sig as NodeJS.Signals);
  } catch {
    process.kill(info.Pid, sig as NodeJS.Signals);
  }
}

/** Whether both pids are processes here in one pid namespace that is not this process's own. */
async function sameContainer(pid: number, init: number): Promise<boolean> {
  try {
    const [a, b, self] = await Promise.all([readlink(`/proc/${pid}/ns/pid`), readlink(`/proc/${init}/ns/pid`), readlink('/proc/self/ns/pid')]);
    return a === b && a !== self;
  } catch {
    return false;
  }
}
