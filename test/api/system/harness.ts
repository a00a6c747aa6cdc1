/**
 * TEMPORARY until the DAG and runs areas land: the system area on a minimal app with stand-in
 * catalog and launcher, behind the same client as TestServer. Switch `systemServer` to TestServer then.
 */
import { readdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createApp } from '../../../src/api/app.js';
import { loadConfig } from '../../../src/config/config.js';
import { NotFoundError } from '../../../src/core/errors.js';
import type { CatalogEntry, DagCatalog } from '../../../src/engine/catalog.js';
import type { RunLauncher } from '../../../src/engine/launcher.js';
import { RunService } from '../../../src/engine/run-service.js';
import { embeddedDeps, loadDagFile } from '../../../src/main/embedded.js';
import { RunEvents, type ServerBase } from '../../../src/main/server/base.js';
import type { DagsArea } from '../../../src/main/server/dags.js';
import type { RunsArea } from '../../../src/main/server/runs.js';
import { wireSystem } from '../../../src/main/server/system.js';
import { consoleLogger } from '../../../src/observability/console-logger.js';
import { TestServer } from '../../helpers/server.js';

class Harness extends TestServer {
  override async start(): Promise<this> {
    const config = loadConfig({
      PATH: process.env.PATH, HOME: process.env.HOME, SHELL: '/bin/sh',
      SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_DATA_DIR: this.dataDir, SVC_DAGS_DIR: this.dagsDir, ...this.env,
    });
    const log = consoleLogger('error');
    const events = new RunEvents();
    const engine = embeddedDeps(config, log, (r) => events.emit(r));
    const runs = new RunService(engine);
    const base: ServerBase = { config, log, engine, runs, events, startedAt: Date.now() };
    const dagsDir = this.dagsDir;
    const entry = async (fileName: string): Promise<CatalogEntry> => {
      try {
        const loaded = await loadDagFile(join(dagsDir, `${fileName}.yaml`));
        return { fileName, loaded, text: '', suspended: false, updatedAt: '' };
      } catch {
        throw new NotFoundError(`DAG ${fileName} not found`);
      }
    };
    const catalog: DagCatalog = {
      get: entry,
      list: async () => ({ entries: await Promise.all((await readdir(dagsDir)).map((f) => entry(f.replace(/\.yaml$/, '')))), errors: [] }),
    };
    const launcher: RunLauncher = {
      async start(dag, o) {
        const run = await runs.create(dag, o);
        void runs.drive({ dagName: run.spec.dagName, dagRunId: run.spec.dagRunId });
        return { dagRunId: run.spec.dagRunId, dagName: run.spec.dagName };
      },
      enqueue: () => Promise.reject(new Error('no queues in the harness')),
    };
    const area = await wireSystem(base, { catalog, routers: [] } as unknown as DagsArea, { launcher, routers: [] } as RunsArea);
    const app = createApp({ log, routers: area.routers, before: area.before ?? [] });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    await area.start?.();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.server = {
      url,
      async close() {
        await area.stop?.();
        await new Promise<void>((r) => server.close(() => r()));
        server.closeAllConnections();
      },
    };
    return this;
  }
}

export const systemServer = (env: Record<string, string> = {}): TestServer => new Harness(env);
