/**
 * The operator's HTTP endpoint (`svc operator`, SVC_OPERATOR_PORT): GET /health for the liveness and
 * readiness probes (a standing-by replica is healthy too: it is ready to take over) and GET /metrics
 * (public: the chart's NetworkPolicy and ServiceMonitor decide who scrapes it).
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHealthRouter } from '../api/system/health.js';
import { createMetricsRouter } from '../api/system/metrics.js';
import { OperatorMetrics } from '../observability/operator-metrics.js';
import type { RunningOperator } from './operator.js';

export interface OperatorHttp {
  port: number;
  close(): Promise<void>;
}

export async function startOperatorHttp(o: { host: string; port: number; version: string; operator: RunningOperator }): Promise<OperatorHttp> {
  const startedAt = Date.now();
  const metrics = new OperatorMetrics({ version: o.version, ...o.operator.stats });
  const app = express();
  app.disable('x-powered-by');
  app.use(createHealthRouter({ version: o.version, startedAt, now: Date.now, problem: async () => undefined }));
  app.use(createMetricsRouter({ access: 'public', contentType: metrics.contentType, render: () => metrics.render() }));
  app.use((_req, res) => { res.status(404).json({ code: 'not_found', message: 'the operator serves GET /health and GET /metrics' }); });
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(o.port, o.host);
    s.once('listening', () => resolve(s));
    s.once('error', reject);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
