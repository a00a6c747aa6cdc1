/** One command started through the fork server, with the same outcome shape as a Node spawn. */
import type { RunningExec } from '../../core/ports/executor.js';
import type { ForkRequest, ForkServer } from './fork-server.js';
import { signalName } from './records.js';

export interface Exit { code: number; signal?: string }

export interface ForkedHooks {
  /** The process runs: returns what to do once it ended. */
  started(pid: number): () => void;
  /** A message of the engine itself into the step's stderr log. */
  note(text: string): void;
  /** The server never came up: run the command another way. */
  fallback(): Promise<Exit>;
  /** The server died after it may have started the command: find the outcome from the records. */
  adopt(): Promise<RunningExec | undefined>;
}

export function runForked(server: ForkServer, req: ForkRequest, hooks: ForkedHooks): Promise<Exit> {
  return new Promise((resolve) => {
    let ended = (): void => undefined;
    let pid = 0;
    server.spawn(req, {
      spawned: (p) => { pid = p; ended = hooks.started(p); },
      exited: (code, sig) => {
        ended();
        resolve(sig > 0 ? { code: 128 + sig, signal: signalName(sig) } : { code });
      },
      failed: (message) => {
        hooks.note(`cannot start the step: ${message}\n`);
        resolve({ code: 127 });
      },
      lost: (mayHaveStarted) => {
        void (mayHaveStarted || pid > 0 ? recover(hooks, ended) : hooks.fallback()).then(resolve);
      },
    });
  });
}

/** The outcome of a command whose server died: its exit record, after waiting for it if it still runs. */
async function recover(hooks: ForkedHooks, ended: () => void): Promise<Exit> {
  const running = await hooks.adopt();
  const r = running ? await running.result : undefined;
  ended();
  if (r?.error?.startsWith('interrupted')) hooks.note(`${r.error}\n`);
  if (r) return { code: r.exitCode, ...(r.signal ? { signal: r.signal } : {}) };
  hooks.note('interrupted: the process that started the step ended before its outcome was known\n');
  return { code: 1 };
}
