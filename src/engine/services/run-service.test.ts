import type { DagRunResource } from '../../core/resources.js';
import type { EngineDeps } from '../deps.js';
import { RunService } from './run-service.js';

const self = { pid: 100, host: 'h1', instance: 'me', isAlive: (pid: number) => pid === 100 || pid === 200 };
const service = new RunService({ self } as unknown as EngineDeps);
const run = (driver?: DagRunResource['status']['driver'], status = 1) =>
  ({ status: { driver, run: { status } } }) as unknown as DagRunResource;

describe('RunService.driverGone / isOrphaned', () => {
  test.each([
    ['no driver recorded', undefined, false],
    ['another host is never presumed gone', { pid: 1, host: 'h2', startedAt: '' }, false],
    ['a live other process', { pid: 200, host: 'h1', startedAt: '' }, false],
    ['a dead process', { pid: 300, host: 'h1', startedAt: '' }, true],
    ['this very process instance', { pid: 100, host: 'h1', instance: 'me', startedAt: '' }, false],
    ['our pid but an earlier instance (restarted container)', { pid: 100, host: 'h1', instance: 'old', startedAt: '' }, true],
  ])('%s', (_name, driver, gone) => {
    expect(service.driverGone(run(driver))).toBe(gone);
    expect(service.isOrphaned(run(driver))).toBe(gone);
    expect(service.isOrphaned(run(driver, 4))).toBe(false);
  });
});
