/** GET /services/resources/history (SPEC 4.1; body designed in docs/api.md). */
import { eventually, TestServer } from '../../helpers/server.js';

let srv: TestServer;
beforeAll(async () => { srv = await new TestServer({ SVC_MONITORING_INTERVAL: '50ms', SVC_MONITORING_RETENTION: '2s' }).start(); });
afterAll(() => srv.stop());

const SERIES = ['cpu', 'memory', 'disk', 'load'];

test('cpu, memory, disk and load samples, oldest first, within their ranges', async () => {
  const body = await eventually(async () => {
    const r = await srv.get('/services/resources/history');
    expect(r.status).toBe(200);
    return r.body.cpu.length >= 3 ? r.body : undefined;
  }, 'three samples');
  expect(Object.keys(body).sort()).toEqual(['cpu', 'disk', 'intervalSeconds', 'load', 'memory', 'retentionSeconds']);
  expect(body.intervalSeconds).toBe(0.05);
  expect(body.retentionSeconds).toBe(2);
  for (const s of SERIES) {
    expect(body[s].length).toBe(body.cpu.length);
    for (const p of body[s]) {
      expect(p).toEqual({ timestamp: expect.any(String), value: expect.any(Number) });
      expect(p.value).toBeGreaterThanOrEqual(0);
      if (s !== 'load') expect(p.value).toBeLessThanOrEqual(100);
    }
    const times = body[s].map((p: { timestamp: string }) => Date.parse(p.timestamp));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  }
  expect(body.disk[0].value).toBeGreaterThan(0);
  expect(body.memory[0].value).toBeGreaterThan(0);
});

test('retention bounds the history (ring buffer)', async () => {
  await eventually(async () => (await srv.get('/services/resources/history?duration=1h')).body.cpu.length >= 40, 'the buffer to fill');
  const r = await srv.get('/services/resources/history?duration=1h');
  expect(r.body.cpu.length).toBeLessThanOrEqual(40);
});

test('a short duration returns only recent samples', async () => {
  const all = (await srv.get('/services/resources/history?duration=1h')).body.cpu.length;
  const recent = (await srv.get('/services/resources/history?duration=100ms')).body.cpu.length;
  expect(recent).toBeLessThan(all);
});

test.each([
  ['1d'], ['-1h'], ['0s'], ['abc'], ['1h%20'], ['1'], [`${'9'.repeat(40)}h`], ['1h&duration=2h'],
])('duration=%s -> 400', async (d) => {
  const r = await srv.get(`/services/resources/history?duration=${d}`);
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ code: 'bad_request', message: expect.stringContaining('duration') });
});

test.each([['30m'], ['1h30m'], ['500ms'], ['24h']])('duration=%s -> 200', async (d) => {
  expect((await srv.get(`/services/resources/history?duration=${d}`)).status).toBe(200);
});
