/**
 * `svc operator`: runs DagRuns as Pods in one namespace until SIGINT/SIGTERM (see main/operator.ts).
 * One replica leads; the others wait to take over. Its log is JSON lines on stderr; stdout gets one
 * line once it leads.
 */
import { loadOperatorConfig } from '../config/operator-config.js';
import { startOperator } from '../main/operator.js';
import { startOperatorHttp } from '../main/operator-http.js';
import { jsonLogger } from '../observability/json-logger.js';
import { flag, type Args } from './args.js';
import type { CliContext } from './context.js';
import { stopSignal } from './signals.js';

export async function operatorCommand(ctx: CliContext, args: Args): Promise<number> {
  const namespace = flag(args, 'namespace');
  const config = { ...ctx.config, backend: 'kubernetes' as const, ...(namespace ? { namespace } : {}) };
  const oc = loadOperatorConfig(process.env, config.version);
  const log = jsonLogger(config.logLevel, ctx.io.err);
  // A replica that lost its Lease must stop driving at once: exit, and let Kubernetes restart it.
  const operator = await startOperator(config, oc, log, () => process.exit(1));
  const http = await startOperatorHttp({ host: config.host, port: oc.port, version: config.version, operator }).catch(async (e: unknown) => {
    await operator.close();
    throw e;
  });
  ctx.io.out(`svc ${config.version} operator serving /health and /metrics on http://${config.host}:${http.port}\n`);
  void operator.leading.then(() => ctx.io.out(`svc ${config.version} operator leading in namespace ${operator.namespace} as ${operator.identity}\n`));
  const signal = await stopSignal();
  log.info('Received stop signal', { signal });
  await operator.close();
  await http.close();
  log.info('Stopped operator');
  setImmediate(() => process.exit(0));
  return 0;
}
