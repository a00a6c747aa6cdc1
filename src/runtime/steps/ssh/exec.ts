/**
 * Runs one exec line on a logged-in connection: stdout and stderr stream to the step's two logs as they
 * arrive, `stdin` (a script) is sent then closed (a command gets an empty stdin at once, so one that
 * reads stdin ends instead of waiting). The remote exit status is the outcome. On abort the step's stop
 * signal is sent to the remote process group first (OpenSSH delivers it to non-root logins only), then
 * the channel is closed without waiting.
 */
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import type { Client, ClientChannel } from 'ssh2';
import { StepError, type StepIO, type StepOutcome } from '../runner.js';

export interface ExecLine {
  line: string;
  stdin?: string;
}

/** The outcome of an exit status or a signal the remote command died of (128 + its number, as shells report). */
export function exitOutcome(code: number | null | undefined, signal?: string): StepOutcome {
  if (typeof code === 'number') return code === 0 ? { exitCode: 0 } : { exitCode: code, error: `exit status ${code}` };
  const name = (signal ?? 'unknown').replace(/^SIG/, '');
  const n = (constants.signals as Record<string, number | undefined>)[`SIG${name}`];
  return { exitCode: n ? 128 + n : 1, error: `the remote command was killed by signal SIG${name}` };
}

/**
 * ssh2 sends a signal only while the channel's stdin is open (Channel.signal checks `writable`), but a
 * command's stdin is closed at once: the request goes through the protocol object directly.
 */
function sendSignal(ch: ClientChannel, signal: string): void {
  const inner = ch as unknown as { outgoing?: { id?: number; state?: string }; _client?: { _protocol?: { signal?: (id: number, s: string) => void } } };
  const id = inner.outgoing?.id;
  const protocol = inner._client?._protocol;
  try {
    // 'eof': our side of the channel is closed for data (stdin sent), still open for requests.
    const open = inner.outgoing?.state === 'open' || inner.outgoing?.state === 'eof';
    if (id !== undefined && open && typeof protocol?.signal === 'function') protocol.signal(id, signal);
  } catch {
    // An unknown signal name or a connection already gone: closing the channel is all that is left.
  }
}

/** How a step is stopped (its abort signal, the signal name to send) and the server's name for errors. */
export interface ExecContext {
  signal: AbortSignal;
  stopSignal: string;
  at: string;
}

export function execLine(client: Client, x: ExecLine, io: StepIO, stop: ExecContext): Promise<StepOutcome> {
  return new Promise((resolve, reject) => {
    client.exec(x.line, (err, ch) => {
      if (err) return reject(new StepError(`ssh step: the server did not run the command: ${err.message}`));
      const out = new StringDecoder('utf8');
      const errs = new StringDecoder('utf8');
      let status: { code: number | null; signal?: string } | undefined;
      const onAbort = (): void => {
        sendSignal(ch, stop.stopSignal);
        ch.close();
        resolve({ exitCode: 1, error: 'ssh step: stopped' });
      };
      stop.signal.addEventListener('abort', onAbort, { once: true });
      ch.on('data', (d: Buffer) => io.out(out.write(d)));
      ch.stderr.on('data', (d: Buffer) => io.err(errs.write(d)));
      ch.on('exit', (code: number | null, signal?: string) => { status = { code, ...(signal ? { signal } : {}) }; });
      ch.on('close', () => {
        stop.signal.removeEventListener('abort', onAbort);
        io.out(out.end());
        io.err(errs.end());
        if (status) resolve(exitOutcome(status.code, status.signal));
        else reject(new StepError(`ssh step: the connection to ${stop.at} closed before the remote command finished`));
      });
      if (stop.signal.aborted) onAbort();
      else ch.end(x.stdin);
    });
  });
}
