/**
 * Adoption after svc restarted while container steps ran: the records say which container and exec an
 * execution began in. An exec that still runs is waited for (its output from then on is not in the log:
 * the Docker API cannot attach to an exec again), one that ended gives its exit code, and a step whose
 * adopted command succeeded goes on with its next commands. Nothing left to adopt: undefined (the engine
 * reports the step interrupted).
 */
import type Docker from 'dockerode';
import type { ExecRequest, RunningExec } from '../../../core/ports/executor.js';
import type { ExecResult } from '../../../core/run/state.js';
import { hasStepCommands } from './commands.js';
import type { ContainerEngine } from './engine.js';
import { exitCode, signalExec } from './exec.js';
import type { DockerLauncher } from './launcher.js';
import { Live, toResult } from './live.js';
import { ExecOutputs, type OutputFiles } from './outputs.js';
import type { ContainerRecord, ContainerRecords } from './records.js';
import { targetOf } from './placement.js';
import { waitExit } from './task.js';

export interface AdoptDeps {
  launcher: DockerLauncher;
  engine: ContainerEngine;
  records: ContainerRecords;
  files: OutputFiles;
}

const isMissing = (e: unknown): boolean => (e as { statusCode?: number }).statusCode === 404;

export async function adoptExecution(req: ExecRequest, deps: AdoptDeps): Promise<RunningExec | undefined> {
  const rec = deps.records.read();
  if (!rec?.container) return undefined;
  let docker: Docker;
  try { docker = await deps.engine.get(); } catch { return undefined; }
  const live = new Live();
  const ended = await endOf(docker, req, rec, live);
  if (!ended) return undefined;
  const result = ended.code.then((code) => finish(req, deps, rec, live, code));
  return { result, signal: (sig) => live.signal(sig) };
}

/** The exit code of what the record names, once it ends; undefined when the engine has nothing of it. */
async function endOf(docker: Docker, req: ExecRequest, rec: ContainerRecord, live: Live): Promise<{ code: Promise<number> } | undefined> {
  if (rec.exitCode !== undefined) return { code: Promise.resolve(rec.exitCode) };
  if (rec.exec) {
    const exec = docker.getExec(rec.exec);
    try { await exec.inspect(); } catch (e) { if (isMissing(e)) return undefined; throw e; }
    const container = docker.getContainer(rec.container!);
    live.running((sig) => void signalExec(exec, container, sig).catch(() => undefined));
    return { code: exitCode(exec) };
  }
  // A step whose container's own process is the step (no exec).
  if (targetOf(req).kind !== 'step' || hasStepCommands(req)) return undefined;
  const container = docker.getContainer(rec.container!);
  try { await container.inspect(); } catch (e) { if (isMissing(e)) return undefined; throw e; }
  live.running((sig) => void container.kill({ signal: sig }).catch(() => undefined));
  return { code: waitExit(container) };
}

async function finish(req: ExecRequest, deps: AdoptDeps, rec: ContainerRecord, live: Live, adopted: number): Promise<ExecResult> {
  if (rec.exitCode === undefined) deps.records.ended(adopted);
  const next = (rec.cmd ?? 0) + 1;
  const total = req.script !== undefined ? 1 : req.commands.length;
  let code = adopted;
  if (code === 0 && !live.stopped && hasStepCommands(req) && next < total) {
    const outputs = new ExecOutputs(deps.files, { secrets: req.secrets, capture: false, maxOutputSize: req.maxOutputSize, unlogged: !!req.unlogged });
    try {
      const place = await deps.launcher.placeForAdoption(req, rec.container!);
      code = await deps.launcher.runCommands(req, place, { outputs, live, records: deps.records }, next);
    } catch (e) {
      outputs.note(e instanceof Error ? e.message : String(e));
      code = 1;
    }
    await outputs.finish();
  }
  if (rec.exitCode === undefined) await deps.launcher.cleanUp(targetOf(req));
  return toResult(code, live, req);
}
