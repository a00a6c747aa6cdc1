/**
 * `svc server`: the embedded service in the foreground until SIGINT/SIGTERM. Its log is JSON lines on
 * stderr (json-logger.ts); stdout gets the one line saying where it listens.
 */
import { backendOf, type Config } from '../config/config.js';
import { startServer } from '../main/server.js';
import { jsonLogger } from '../observability/json-logger.js';
import { flag, type Args } from './args.js';
import type { CliContext } from './context.js';
import { stopSignal } from './signals.js';

/** `--backend` and `--namespace` override SVC_BACKEND and SVC_NAMESPACE. */
function withFlags(config: Readonly<Config>, args: Args): Readonly<Config> {
  const backend = flag(args, 'backend');
  const namespace = flag(args, 'namespace');
  return { ...config, ...(backend !== undefined ? { backend: backendOf(backend) } : {}), ...(namespace ? { namespace } : {}) };
}

export async function serverCommand(ctx: CliContext, args: Args): Promise<number> {
  const config = withFlags(ctx.config, args);
  const log = jsonLogger(config.logLevel, ctx.io.err);
  const server = await startServer(config, log);
  const where = config.backend === 'embedded' ? `DAGs: ${config.dagsDir}, data: ${config.dataDir}` : `kubernetes namespace ${server.namespace ?? config.namespace}`;
  ctx.io.out(`svc ${config.version} listening on ${server.url} (${where})\n`);
  const signal = await stopSignal();
  log.info('Received stop signal', { signal });
  await server.close();
  log.info('Stopped server');
  // Runs still in flight (a long step, a run waiting for approval) keep timers alive: they are taken
  // over by the next start, so the process exits now instead of hanging until they end.
  setImmediate(() => process.exit(0));
  return 0;
}
