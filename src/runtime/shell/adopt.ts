/**
 * Adoption after a crash: the previous engine process died while this execution ran. If its process
 * still lives, wait for it and read the exit code its reaper records (the fork server, which outlives
 * the engine); if it already ended, read the recorded code. A command spawned by the engine itself has
 * no reaper once the engine is gone: its outcome is unknown. Output sent through pipes to the dead
 * engine is lost; output written straight to the log files is not.
 */
import type { RunningExec } from '../../core/ports/executor.js';
import type { LocalRequest } from './local.js';
import type { ExecResult } from '../../core/run/state.js';
import { killGroup, readExecRecord, type ExecRecord } from './records.js';
import { isProcessAlive } from './liveness.js';

/** Alive and still the same process (a pid reused by another process after a crash is not the step). */
const alive = (rec: ExecRecord): boolean => rec.pid !== undefined && isProcessAlive(rec.pid, rec.startTicks);

/** `cmd`: which command of the step was adopted (undefined for records that do not say). */
export async function adoptProcess(req: LocalRequest): Promise<(RunningExec & { cmd?: number }) | undefined> {
  const rec = await readExecRecord(req.files.recordFile, req.files.recordKey);
  if (rec === undefined) return undefined;
  // An exit code after the latest start is final (the pid may since belong to another process).
  const cmd = rec.cmd !== undefined ? { cmd: rec.cmd } : {};
  if (rec.exitCode !== undefined) return { result: Promise.resolve(fromCode(rec.exitCode)), signal: () => undefined, ...cmd };
  if (!alive(rec)) return undefined;
  const pid = rec.pid!;
  let stopped: string | undefined;
  const result = new Promise<ExecResult>((resolve) => {
    const poll = setInterval(() => {
      if (alive(rec)) return;
      clearInterval(poll);
      void recordedCode(req).then((code) => {
        resolve(code === undefined ? { exitCode: 1, error: 'interrupted: exit status unknown', ...(stopped ? { signal: stopped } : {}) } : { ...fromCode(code), ...(stopped ? { signal: stopped } : {}) });
      });
    }, 200);
  });
  return { result, signal: (sig) => { stopped = sig; killGroup(pid, sig); }, ...cmd };
}

/** The reaper appends the code just after the process is gone: a short grace for that write. */
async function recordedCode(req: LocalRequest): Promise<number | undefined> {
  for (let i = 0; i < 10; i++) {
    const code = (await readExecRecord(req.files.recordFile, req.files.recordKey))?.exitCode;
    if (code !== undefined || i === 9) return code;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

/** 141 = killed by SIGPIPE: it wrote to the pipe of the engine that died; report it as interrupted so retryPolicy applies. */
const fromCode = (code: number): ExecResult => {
  if (code === 0) return { exitCode: 0 };
  if (code === 141) return { exitCode: code, error: 'interrupted: the step wrote output while the engine was down (SIGPIPE)' };
  return { exitCode: code, error: `exit status ${code}` };
};
