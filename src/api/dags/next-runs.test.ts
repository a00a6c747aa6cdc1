import type { DagEntry } from '../../engine/services/api.js';
import { NextRuns } from './next-runs.js';

const entry = (start: string[], more: { suspended?: boolean; errors?: string[] } = {}) => ({
  fileName: 'd', suspended: more.suspended ?? false,
  loaded: { errors: more.errors ?? [], definition: { name: 'd', schedule: { start: start.map((raw) => {
    const m = /^CRON_TZ=(\S+) (.*)$/.exec(raw);
    return m ? { expression: m[2]!, timezone: m[1]!, raw } : { expression: raw, raw };
  }), stop: [], restart: [] } } },
}) as unknown as DagEntry;

const at = (iso: string) => Date.parse(iso);

// The default zone is Europe/Berlin (UTC+1 in March): "0 1 * * *" is 00:00Z there.
describe('NextRuns', () => {
  test.each([
    ['the earliest of the entries', ['0 3 * * *', '30 1 * * *'], '2026-03-01T00:00:00Z', '2026-03-01T00:30:00.000Z'],
    ['strictly after now', ['0 1 * * *'], '2026-03-01T01:00:00Z', '2026-03-02T00:00:00.000Z'],
    ['in the entry\'s CRON_TZ', ['CRON_TZ=Asia/Tokyo 0 9 * * *'], '2026-03-01T00:30:00Z', '2026-03-02T00:00:00.000Z'],
    ['in the default zone without CRON_TZ', ['0 9 * * *'], '2026-03-01T00:30:00Z', '2026-03-01T08:00:00.000Z'],
  ])('%s', (_title, start, now, expected) => {
    expect(new NextRuns('Europe/Berlin').of(entry(start), at(now))).toBe(expected);
  });

  test('"" without a start schedule, when suspended, when invalid', () => {
    const n = new NextRuns('UTC');
    expect(n.of(entry([]), 0)).toBe('');
    expect(n.of(entry(['* * * * *'], { suspended: true }), 0)).toBe('');
    expect(n.of(entry(['* * * * *'], { errors: ['bad'] }), 0)).toBe('');
  });

  test('a remembered tick serves until it passes, and never a time before it was computed', () => {
    const n = new NextRuns('UTC');
    const e = entry(['0 * * * *']);
    expect(n.of(e, at('2026-03-01T10:10:00Z'))).toBe('2026-03-01T11:00:00.000Z');
    expect(n.of(e, at('2026-03-01T10:59:59Z'))).toBe('2026-03-01T11:00:00.000Z');
    expect(n.of(e, at('2026-03-01T11:00:00Z'))).toBe('2026-03-01T12:00:00.000Z');
    expect(n.of(e, at('2026-03-01T09:30:00Z'))).toBe('2026-03-01T10:00:00.000Z');
  });
});
