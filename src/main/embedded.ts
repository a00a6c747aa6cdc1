/** Wiring of the embedded backend: files for state, local processes for steps. */
import { randomBytes, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { isProcessAlive, processStartTicks } from '../runtime/shell/liveness.js';
import { LocalOwnership } from '../adapters/store/local/ownership.js';
import { LocalRunStore } from '../adapters/store/local/run-store.js';
import { FsLogStore } from '../adapters/logstore/fs-log-store.js';
import { FsDagSource } from '../adapters/dagsource/fs-dags.js';
import type { Config } from '../config/config.js';
import type { EngineLogger } from '../core/ports/engine-ports.js';
import type { IdGen } from '../core/ports/clock.js';
import type { EngineDeps } from '../engine/deps.js';
import { ProcessExecutor } from '../runtime/shell/process.js';
import { ForkServer } from '../runtime/shell/fork-server.js';
import { nativeForkServer } from '../runtime/shell/native.js';
import { hitlLauncher } from '../runtime/hitl.js';
import { inProcessLaunchers } from '../runtime/steps/index.js';
import { SmtpNotifier } from '../runtime/mail/notifier.js';
import { OtlpRunTracer } from '../adapters/otel/otlp-tracer.js';
import { LocalRunControls } from '../adapters/store/local/controls.js';
import { LocalRunEvents } from '../adapters/store/local/events.js';
import { BuiltinSecretProvider } from '../runtime/secrets/providers.js';
import { FsDagStore } from '../adapters/dagstore/fs-dag-store.js';
import { localApiKeys, localUsers, localWebhooks } from '../adapters/records/local.js';
import type { Backend } from './backend.js';
import { embeddedContainers } from './containers.js';

/** Time-ordered ids: 12 hex digits of milliseconds, then 16 random hex digits (sortable like UUIDv7). */
export const timeIds = (now: () => number): IdGen => ({
  next: () => `${now().toString(16).padStart(12, '0')}${randomBytes(8).toString('hex')}`,
});

/** This process, as the owner of the runs it drives (a restarted container may get the same pid: instance). */
const SELF = { pid: process.pid, startTicks: processStartTicks(process.pid), host: hostname(), instance: randomUUID() };

/** With `onState` (a foreground run's progress display) steps run at once: the fork server starts now. */
export function embeddedDeps(config: Config, log: EngineLogger, hooks: Pick<EngineDeps, 'onChange' | 'onState'> = {}): EngineDeps {
  const store = new LocalRunStore({ dataDir: config.dataDir });
  const forkServer = config.forkServer ? new ForkServer({ native: nativeForkServer() }) : undefined;
  if (hooks.onState) forkServer?.warm();
  const logs = new FsLogStore(join(resolve(config.dataDir), 'runs'), (k) => store.runDir(k));
  const shell = new ProcessExecutor({ layout: (req) => logs.execFiles(req.identity, req.merged), ...(forkServer ? { forkServer } : {}) });
  const clock = { now: () => Date.now() };
  const containers = embeddedContainers(config, { logs, store, log });
  return {
    store, logs, launchers: { ...inProcessLaunchers(logs), shell, hitl: hitlLauncher, container: containers.launcher },
    controls: new LocalRunControls({ dataDir: config.dataDir }), events: new LocalRunEvents({ dataDir: config.dataDir }),
    secrets: new BuiltinSecretProvider(), dags: new FsDagSource(config.dagsDir), notifier: new SmtpNotifier(), tracer: new OtlpRunTracer(),
    clock, ids: timeIds(clock.now), log, systemEnv: config.systemEnv, cwd: process.cwd(), defaultShell: config.defaultShell, maxCallDepth: config.maxCallDepth,
    ownership: new LocalOwnership({ dataDir: config.dataDir, self: SELF, isAlive: isProcessAlive }),
    ...hooks,
    onChange: containers.onChange(hooks.onChange),
  };
}

/** The embedded backend of the server: files under the data directory, steps as local processes. */
export function embeddedBackend(config: Config, log: EngineLogger, hooks: Pick<EngineDeps, 'onChange' | 'onState'> = {}): Backend {
  return {
    name: 'embedded', engine: embeddedDeps(config, log, hooks), drives: true,
    dags: embeddedDagStore(config),
    records: records(config.dataDir, log),
    problem: () => dataDirProblem(config.dataDir),
    close: async () => undefined,
  };
}

/** The auth and webhook records under the data directory; an entry they cannot read is logged, and kept. */
function records(dataDir: string, log: EngineLogger): Backend['records'] {
  const report = (msg: string, fields: Record<string, unknown>): void => log.warn(msg, fields);
  return { users: localUsers(dataDir, report), apiKeys: localApiKeys(dataDir, report), webhooks: localWebhooks(dataDir, report) };
}

/** Why the data directory cannot hold state (a cheap access check), or undefined. */
async function dataDirProblem(dir: string): Promise<string | undefined> {
  try {
    await access(dir, constants.W_OK | constants.X_OK);
    return undefined;
  } catch (e) {
    return `data directory ${dir} is not writable: ${(e as NodeJS.ErrnoException).code ?? String(e)}`;
  }
}

export { loadDagFile } from '../adapters/dagsource/fs-dags.js';

/** The DAG files of the DAGs directory, as the embedded server lists them (`svc list`). */
export function embeddedDagStore(config: Pick<Config, 'dagsDir' | 'dataDir'>): FsDagStore {
  return new FsDagStore({ dagsDir: config.dagsDir, dataDir: config.dataDir });
}
