/**
 * Adoption after a crash: the previous engine process died while this execution ran. If its process
 * group still lives, wait for it and read the exit code its wrapper records; if it already ended,
 * read the recorded code. Output written after the crash is lost (the pipes died with the engine).
 */
import { readFile } from 'node:fs/promises';
import type { ExecRequest, RunningExec } from '../../core/ports/executor.js';
import type { ExecResult } from '../../core/run/state.js';
import { killGroup, readExitFile } from './records.js';

import { isProcessAlive, processStartTicks } from './liveness.js';

interface PidRecord { pid: number; startTicks?: string }

async function readPid(path: string): Promise<PidRecord | undefined> {
  try {
    const rec = JSON.parse(await readFile(path, 'utf8')) as { pid?: number; startTicks?: string };
    return typeof rec.pid === 'number' && rec.pid > 0 ? { pid: rec.pid, ...(rec.startTicks ? { startTicks: rec.startTicks } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

/** Alive and still the same process (a pid reused by another process after a crash is not the step). */
const alive = (rec: PidRecord): boolean =>
  isProcessAlive(rec.pid) && (rec.startTicks === undefined || processStartTicks(rec.pid) === rec.startTicks);

export async function adoptProcess(req: ExecRequest): Promise<RunningExec | undefined> {
  const rec = await readPid(req.files.pidFile);
  // A live process first: the exit record may be an earlier command's of a multi-command step.
  if (rec === undefined || !alive(rec)) {
    const recorded = await readExitFile(req.files.exitFile);
    return recorded === undefined ? undefined : { result: Promise.resolve(fromCode(recorded)), signal: () => undefined };
  }
  const pid = rec.pid;
  let stopped: string | undefined;
  const result = new Promise<ExecResult>((resolve) => {
    const poll = setInterval(() => {
      if (alive(rec)) return;
      clearInterval(poll);
      void readExitFile(req.files.exitFile).then((code) =>
        resolve(code === undefined ? { exitCode: 1, error: 'interrupted: exit status unknown', ...(stopped ? { signal: stopped } : {}) } : { ...fromCode(code), ...(stopped ? { signal: stopped } : {}) }));
    }, 200);
  });
  return { result, signal: (sig) => { stopped = sig; killGroup(pid, sig); } };
}

/** 141 = killed by SIGPIPE: it wrote to the pipe of the engine that died; report it as interrupted so retryPolicy applies. */
const fromCode = (code: number): ExecResult => {
  if (code === 0) return { exitCode: 0 };
  if (code === 141) return { exitCode: code, error: 'interrupted: the step wrote output while the engine was down (SIGPIPE)' };
  return { exitCode: code, error: `exit status ${code}` };
};
