import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BadRequestError, NotFoundError } from '../../../core/errors.js';
import { makeRun } from '../conformance.js';
import { LocalRunControls } from './controls.js';
import { LocalRunStore } from './run-store.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-controls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dataDir = join(dir, 'data');
const key = { dagName: 'hello', dagRunId: 'r1' };

describe('LocalRunControls', () => {
  const store = new LocalRunStore({ dataDir });
  const controls = new LocalRunControls({ dataDir });
  beforeAll(() => store.create(makeRun()));

  test('pending requests come back in arrival order until acknowledged', async () => {
    expect(await controls.pending(key)).toEqual([]);
    const a = await controls.push(key, { type: 'approve', node: 'a', inputs: { X: '1' } });
    const b = await controls.push(key, { type: 'reject', node: 'b', reason: 'no' });
    expect((await controls.pending(key)).map((c) => c.id)).toEqual([a.id, b.id]);
    expect((await controls.pending(key))[1]!.observation).toEqual({ type: 'reject', node: 'b', reason: 'no' });
    await controls.ack(key, [a.id]);
    expect((await controls.pending(key)).map((c) => c.id)).toEqual([b.id]);
    await controls.ack(key, [b.id, 'not-an-id/../x']);
    expect(await controls.pending(key)).toEqual([]);
  });

  test('a second instance (another process) sees the requests of the first', async () => {
    const req = await controls.push(key, { type: 'approve', node: 'a', inputs: {} });
    expect((await new LocalRunControls({ dataDir }).pending(key)).map((c) => c.id)).toEqual([req.id]);
    await controls.ack(key, [req.id]);
  });

  test('unknown runs and unsafe keys are refused', async () => {
    await expect(controls.push({ dagName: 'hello', dagRunId: 'nope' }, { type: 'reject', node: 'a' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(controls.push({ dagName: '..', dagRunId: 'r1' }, { type: 'reject', node: 'a' })).rejects.toBeInstanceOf(BadRequestError);
  });
});
