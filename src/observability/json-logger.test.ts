import { hostname } from 'node:os';
import { jsonLogger } from './json-logger.js';

function capture(level: Parameters<typeof jsonLogger>[0]) {
  const writes: string[] = [];
  const log = jsonLogger(level, (s) => void writes.push(s));
  return { log, writes, events: () => writes.map((w) => JSON.parse(w) as Record<string, unknown>) };
}

test('one JSON object per line: level name, ISO time, pid, hostname, the fields and the message', () => {
  const { log, writes, events } = capture('info');
  const before = Date.now();
  log.info('Finished dag-run', { dag: 'hello', dagRunId: 'r1', status: 'succeeded' });
  log.warn('Queue pass failed', { error: 'disk full' });
  log.error('Unhandled API error');
  expect(writes.every((w) => w.endsWith('\n') && w.indexOf('\n') === w.length - 1)).toBe(true);
  const [a, b, c] = events();
  expect(a).toEqual({ level: 'info', time: expect.any(String), pid: process.pid, hostname: hostname(), dag: 'hello', dagRunId: 'r1', status: 'succeeded', msg: 'Finished dag-run' });
  expect(Date.parse(a!.time as string)).toBeGreaterThanOrEqual(before - 1000);
  expect(a!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  expect(b).toMatchObject({ level: 'warn', error: 'disk full', msg: 'Queue pass failed' });
  expect(c).toMatchObject({ level: 'error', msg: 'Unhandled API error' });
});

test('events below the level are left out; debug lets everything through', () => {
  for (const [level, seen] of [['debug', ['debug', 'info', 'warn', 'error']], ['info', ['info', 'warn', 'error']], ['warn', ['warn', 'error']], ['error', ['error']]] as const) {
    const { log, events } = capture(level);
    log.debug!('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(events().map((e) => e.level)).toEqual(seen);
  }
});

test('field values that are not JSON-friendly still make one valid line (a stack, quotes, newlines, a cycle)', () => {
  const { log, writes, events } = capture('info');
  const cyclic: Record<string, unknown> = { name: 'x' };
  cyclic.self = cyclic;
  log.error('Unhandled API error', { error: 'Error: "bad"\n    at f (a.js:1:1)', detail: cyclic });
  expect(writes).toHaveLength(1);
  expect(events()[0]).toMatchObject({ error: 'Error: "bad"\n    at f (a.js:1:1)', detail: { name: 'x', self: '[Circular]' } });
});
