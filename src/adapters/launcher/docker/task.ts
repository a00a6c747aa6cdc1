/**
 * A step-level container whose own process is the step (its block's `command`, or the image as it is,
 * when the step has no command): its output followed from the engine's log of it, its exit code from
 * the engine's wait. Stopping sends the signal to the container.
 */
import type Docker from 'dockerode';
import { drain } from './exec.js';
import type { ExecOutputs } from './outputs.js';

export interface RunningTask {
  readonly done: Promise<number>;
  signal(sig: string): void;
}

export function followTask(container: Docker.Container, outputs: ExecOutputs, warn: (text: string) => void): RunningTask {
  const done = (async () => {
    const stream = await container.logs({ follow: true, stdout: true, stderr: true }) as unknown as NodeJS.ReadableStream;
    await drain(stream, outputs);
    return waitExit(container);
  })();
  const signal = (sig: string): void => {
    void container.kill({ signal: sig }).catch((e: Error) => {
      if ((e as { statusCode?: number }).statusCode !== 409) warn(`cannot signal the step's container: ${e.message}`);
    });
  };
  return { done, signal };
}

/** The exit code of a container that has ended or will (the wait returns at once for an exited one). */
export async function waitExit(container: Docker.Container): Promise<number> {
  const r = await container.wait() as { StatusCode?: number };
  return r.StatusCode ?? (await container.inspect()).State.ExitCode;
}
