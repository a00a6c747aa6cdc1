/**
 * The DAG tests' server. Until the runs and system areas are wired, `startServer` cannot start as a
 * whole, so this builds the real server base and the DAG area alone behind the real app; once they
 * land, `dagsServer` returns a plain TestServer.
 */
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/api/app.js';
import { loadConfig } from '../../../src/config/config.js';
import { RunService } from '../../../src/engine/run-service.js';
import { embeddedDeps } from '../../../src/main/embedded.js';
import { RunEvents, type ServerBase } from '../../../src/main/server/base.js';
import { wireDags } from '../../../src/main/server/dags.js';
import { consoleLogger } from '../../../src/observability/console-logger.js';
import { TestServer } from '../../helpers/server.js';

class DagsOnlyServer extends TestServer {
  base!: ServerBase;

  override async start(): Promise<this> {
    const config = loadConfig({
      PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh',
      SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: this.dataDir, SVC_DAGS_DIR: this.dagsDir, ...this.env,
    });
    const log = consoleLogger(process.env.SVC_TEST_LOG ?? 'error');
    const events = new RunEvents();
    const engine = embeddedDeps(config, log, (run) => events.emit(run));
    this.base = { config, log, engine, runs: new RunService(engine), events, startedAt: Date.now() };
    const area = await wireDags(this.base);
    const app = createApp({ log, routers: area.routers });
    const server = await new Promise<ReturnType<typeof app.listen>>((res) => { const s = app.listen(0, '127.0.0.1', () => res(s)); });
    await area.start?.();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.server = { url, close: () => new Promise<void>((res) => { server.close(() => res()); server.closeAllConnections(); }) };
    return this;
  }
}

export function dagsServer(env: Record<string, string> = {}): TestServer & { base?: ServerBase } {
  return new DagsOnlyServer(env);
}
