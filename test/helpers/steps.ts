/**
 * Runs a DAG through the real embedded engine (files under a temp data directory, real processes for
 * shell steps) with the in-process step types, optionally overridden by `runners`; returns the finished
 * run and its steps' logs. For the step type tests (test/steps/).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { execLog } from '../../src/core/ports/log-store.js';
import type { Launcher } from '../../src/core/ports/executor.js';
import type { DagRunResource } from '../../src/core/resources.js';
import type { NodeState } from '../../src/core/run/state.js';
import { runStatusLabel } from '../../src/core/run/status.js';
import type { StepType } from '../../src/core/spec/types.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { embeddedDeps, loadDagFile } from '../../src/main/embedded.js';
import { inProcessLaunchers, STEP_RUNNERS } from '../../src/runtime/steps/index.js';
import type { StepRunner } from '../../src/runtime/steps/runner.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface StepsRun {
  run: DagRunResource;
  /** The run's status label (succeeded, failed, ...). */
  status: string;
  node(name: string): NodeState;
  /** A step's stdout (or stderr) log of its first execution, '' when there is none. */
  log(name: string, stream?: 'stdout' | 'stderr'): Promise<string>;
  outputs(): Promise<Record<string, string>>;
  /** Another run as stored now (a sub-DAG run of this one). */
  get(key: { dagName: string; dagRunId: string }): Promise<DagRunResource | undefined>;
  dir: string;
}

export interface StepsOptions {
  /** Extra system environment (SVC_* and DAG_* reach steps; others only ${VAR} expansion at load). */
  env?: Record<string, string>;
  runners?: Partial<Record<StepType, StepRunner>>;
  /** Files to write beside the DAG file first (relative path -> content). */
  files?: Record<string, string | Buffer>;
  params?: string;
  /** Launchers over the in-process ones, by step type. */
  launchers?: Partial<Record<StepType, Launcher>>;
}

let n = 0;

export async function runSteps(yaml: string, o: StepsOptions = {}): Promise<StepsRun> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-steps-'));
  for (const [rel, content] of Object.entries(o.files ?? {})) writeFileSync(join(dir, rel), content);
  const name = `steps${n++}`;
  writeFileSync(join(dir, `${name}.yaml`), yaml);
  const config = loadConfig({ PATH: process.env.PATH, HOME: process.env.HOME ?? dir, SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dir, ...o.env });
  const deps = embeddedDeps(config, quiet);
  const launchers = { ...deps.launchers, ...inProcessLaunchers(deps.logs, { ...STEP_RUNNERS, ...o.runners }), ...o.launchers };
  const runs = new RunService({ ...deps, launchers });
  const loaded = await loadDagFile(join(dir, `${name}.yaml`));
  if (loaded.errors.length > 0) throw new Error(`DAG does not load: ${loaded.errors.join('; ')}`);
  const created = await runs.create(loaded, o.params !== undefined ? { params: o.params } : {});
  const run = await runs.drive({ dagName: created.spec.dagName, dagRunId: created.spec.dagRunId });
  const node = (step: string): NodeState => {
    const found = run.status.run.nodes.find((x) => x.name === step);
    if (!found) throw new Error(`no step ${step} in ${run.status.run.nodes.map((x) => x.name).join(', ')}`);
    return found;
  };
  return {
    run, dir, node,
    get: async (key) => (await deps.store.get(key)) ?? undefined,
    status: runStatusLabel(run.status.run.status),
    log: async (step, stream = 'stdout') => (await deps.logs.text(execLog({ dagName: run.spec.dagName, dagRunId: run.spec.dagRunId, attemptId: run.status.attemptId, node: step, attempt: 0 }, stream, false), 64 << 20)) ?? '',
    outputs: async () => ((await deps.logs.readOutputs({ dagName: run.spec.dagName, dagRunId: run.spec.dagRunId }, run.status.attemptId)) as { outputs?: Record<string, string> } | undefined)?.outputs ?? {},
  };
}
