/** `svc server`: the embedded service in the foreground until SIGINT/SIGTERM. */
import { startServer } from '../main/server.js';
import { consoleLogger } from '../observability/console-logger.js';
import type { Args } from './args.js';
import type { CliContext } from './context.js';

export async function serverCommand(ctx: CliContext, _args: Args): Promise<number> {
  const log = consoleLogger(ctx.config.logLevel, ctx.io.err);
  const server = await startServer(ctx.config, log);
  ctx.io.out(`svc ${ctx.config.version} listening on ${server.url} (DAGs: ${ctx.config.dagsDir}, data: ${ctx.config.dataDir})\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  ctx.io.err('shutting down\n');
  await server.close();
  // Runs still in flight (a long step, a run waiting for approval) keep timers alive: they are taken
  // over by the next start, so the process exits now instead of hanging until they end.
  setImmediate(() => process.exit(0));
  return 0;
}
