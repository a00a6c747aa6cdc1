/**
 * `svc server`: the embedded service in the foreground until SIGINT/SIGTERM. Its log is JSON lines on
 * stderr (json-logger.ts); stdout gets the one line saying where it listens.
 */
import { startServer } from '../main/server.js';
import { jsonLogger } from '../observability/json-logger.js';
import type { Args } from './args.js';
import type { CliContext } from './context.js';

export async function serverCommand(ctx: CliContext, _args: Args): Promise<number> {
  const log = jsonLogger(ctx.config.logLevel, ctx.io.err);
  const server = await startServer(ctx.config, log);
  ctx.io.out(`svc ${ctx.config.version} listening on ${server.url} (DAGs: ${ctx.config.dagsDir}, data: ${ctx.config.dataDir})\n`);
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log.info('Received stop signal', { signal });
  await server.close();
  log.info('Stopped server');
  // Runs still in flight (a long step, a run waiting for approval) keep timers alive: they are taken
  // over by the next start, so the process exits now instead of hanging until they end.
  setImmediate(() => process.exit(0));
  return 0;
}
