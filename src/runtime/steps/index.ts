/**
 * The step types that run in this process, by type (SPEC 2.6): each a runner made a Launcher. Runners
 * load on first use: a CLI command or a server that never runs an s3 step never loads the S3 SDK.
 */
import type { Launcher } from '../../core/ports/executor.js';
import type { LogStore } from '../../core/ports/log-store.js';
import type { StepType } from '../../core/spec/types.js';
import { inProcessLauncher } from './in-process.js';
import type { StepRunner } from './runner.js';

type Load = () => Promise<StepRunner>;

const LOADERS: Partial<Record<StepType, Load>> = {
  http: async () => (await import('./http.js')).runHttp,
  jq: async () => (await import('./jq.js')).runJq,
  mail: async () => (await import('./mail.js')).runMail,
  ssh: async () => (await import('./ssh.js')).runSsh,
  redis: async () => (await import('./redis/index.js')).runRedis,
  postgres: async () => (await import('./sql/postgres.js')).runPostgres,
  sqlite: async () => (await import('./sql/sqlite.js')).runSqlite,
  s3: async () => (await import('./s3/index.js')).runS3,
  archive: async () => (await import('./archive/index.js')).runArchive,
  chat: async () => (await import('./chat/index.js')).runChat,
};

function lazy(load: Load): StepRunner {
  let loaded: Promise<StepRunner> | undefined;
  return async (run) => (await (loaded ??= load()))(run);
}

export const STEP_RUNNERS: Partial<Record<StepType, StepRunner>> = Object.fromEntries(
  Object.entries(LOADERS).map(([type, load]) => [type, lazy(load)]),
);

/**
 * Step types that run only embedded, beside a local container engine: not `svc run-step` types (a step
 * Pod has no engine), so on Kubernetes they stay unsupported by the backend.
 */
export const EMBEDDED_RUNNERS: Partial<Record<StepType, StepRunner>> = {
  gha: lazy(async () => (await import('./gha.js')).runGha),
};

export function inProcessLaunchers(logs: LogStore, runners = STEP_RUNNERS): Partial<Record<StepType, Launcher>> {
  return Object.fromEntries(Object.entries({ ...EMBEDDED_RUNNERS, ...runners }).map(([type, run]) => [type, inProcessLauncher(run, logs)]));
}
