/** GET /health (SPEC 4.1) and GET /workers (SPEC 4.8) over real HTTP. */
import { rmSync, writeFileSync } from 'node:fs';
import { eventually, TestServer } from '../../helpers/server.js';
import { gatedSteps, openAndStop, openGate } from './gate.js';

describe('health', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await new TestServer().start(); });
  afterAll(() => openAndStop(srv));

  test('200 healthy with version, integer uptime and timestamp', async () => {
    const r = await srv.get('/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'healthy', version: expect.any(String), uptime: expect.any(Number), timestamp: expect.any(String) });
    expect(Number.isInteger(r.body.uptime)).toBe(true);
    expect(new Date(r.body.timestamp).toISOString()).toBe(r.body.timestamp);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
  });

  test('503 unhealthy with error when the data directory is gone, healthy again when it is back', async () => {
    rmSync(srv.dataDir, { recursive: true, force: true });
    writeFileSync(srv.dataDir, 'not a directory');
    const r = await srv.get('/health');
    expect(r.status).toBe(503);
    expect(r.body).toEqual({
      status: 'unhealthy', version: expect.any(String), uptime: expect.any(Number), timestamp: expect.any(String),
      error: expect.stringContaining('data directory'),
    });
    rmSync(srv.dataDir);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(srv.dataDir);
    expect((await srv.get('/health')).status).toBe(200);
  });
});

describe('workers', () => {
  let srv: TestServer;
  beforeAll(async () => { srv = await new TestServer().start(); });
  afterAll(() => openAndStop(srv));

  test('the embedded backend reports one healthy worker `local`', async () => {
    const r = await srv.get('/workers');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      workers: [{ id: 'local', labels: {}, health_status: 'WORKER_HEALTH_STATUS_HEALTHY', last_heartbeat: expect.any(String), running_tasks: [] }],
    });
  });

  test('a running run is a running task until it ends', async () => {
    srv.dag('slow', gatedSteps(srv));
    const token = (await srv.post('/dags/slow/webhook')).body.token;
    const started = await srv.req('POST', '/webhooks/slow', { dagRunId: 'task-1' }, { authorization: `Bearer ${token}` });
    expect(started.status).toBe(200);
    const tasks = await eventually(async () => {
      const t = (await srv.get('/workers')).body.workers[0].running_tasks;
      return t.length ? t : undefined;
    }, 'the run to show as a running task');
    expect(tasks).toEqual([{
      dagName: 'slow', dagRunId: 'task-1', rootDagRunName: 'slow', rootDagRunId: 'task-1', parentDagRunName: '', parentDagRunId: '',
      startedAt: expect.any(String),
    }]);
    openGate(srv);
    await eventually(async () => (await srv.get('/workers')).body.workers[0].running_tasks.length === 0, 'the task to end');
  });
});
