/** Unit tests of the agent's pure parts (no cluster needed). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { expand } from './agent/env.js';
import { LogWriter, serveLog } from './agent/logs.js';
import { decide, isLive, tolerates, unfit } from './agent/schedule.js';
import type { Node, Pod } from './agent/types.js';

const node = (name: string, labels: Record<string, string> = {}, extra: Partial<Node> = {}): Node => ({
  metadata: { name, labels },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
  ...extra,
});
const pod = (spec: Partial<Pod['spec']> = {}): Pod => ({ metadata: { name: 'p', uid: 'u1' }, spec: { containers: [], ...spec } });

describe('scheduling', () => {
  test('nodeSelector, node affinity, taints and unschedulable', () => {
    expect(unfit(pod({ nodeSelector: { pool: 'a' } }), node('n', { pool: 'a' }))).toBeUndefined();
    expect(unfit(pod({ nodeSelector: { pool: 'a' } }), node('n', { pool: 'b' }))).toMatch(/selector/);
    const aff = (operator: 'In' | 'NotIn' | 'Exists' | 'Gt', values?: string[]): Pod =>
      pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator, ...(values ? { values } : {}) }] }] } } } });
    expect(unfit(aff('In', ['x', 'y']), node('n', { k: 'y' }))).toBeUndefined();
    expect(unfit(aff('NotIn', ['y']), node('n', { k: 'y' }))).toBeDefined();
    expect(unfit(aff('Exists'), node('n', {}))).toBeDefined();
    expect(unfit(aff('Gt', ['3']), node('n', { k: '4' }))).toBeUndefined();
    const tainted = node('n', {}, { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } });
    expect(unfit(pod(), tainted)).toMatch(/taint/);
    expect(unfit(pod({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }] }), tainted)).toBeUndefined();
    expect(tolerates([{ operator: 'Exists' }], { key: 'any', effect: 'NoExecute' })).toBe(true);
    expect(unfit(pod(), node('n', {}, { spec: { unschedulable: true } }))).toMatch(/unschedulable/);
  });

  test('decide binds to the least loaded fitting node or explains why none fits', () => {
    const nodes = [node('a', { pool: 'x' }), node('b', { pool: 'x' }), node('c', { pool: 'y' })];
    expect(decide(pod({ nodeSelector: { pool: 'y' } }), nodes, new Map())).toEqual({ kind: 'bind', node: 'c' });
    expect(decide(pod({ nodeSelector: { pool: 'x' } }), nodes, new Map([['a', 3]]))).toEqual({ kind: 'bind', node: 'b' });
    expect(decide(pod({ nodeSelector: { pool: 'z' } }), nodes, new Map())).toEqual({
      kind: 'unschedulable',
      message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
    });
  });

  test('a node is live while its Lease is fresh and it is Ready', () => {
    const now = Date.parse('2026-01-01T00:00:10Z');
    const lease = (t: string) => ({ metadata: { name: 'n' }, spec: { renewTime: t, leaseDurationSeconds: 5 } });
    expect(isLive(node('n'), lease('2026-01-01T00:00:08.000000Z'), now)).toBe(true);
    expect(isLive(node('n'), lease('2026-01-01T00:00:01.000000Z'), now)).toBe(false);
    expect(isLive(node('n'), undefined, now)).toBe(false);
  });
});

test('$(VAR) expansion follows Kubernetes rules', () => {
  expect(expand('a $(X) $(Y) $$(X) $(', { X: '1' })).toBe('a 1 $(Y) $(X) $(');
});

test('CRI log files: partial lines, tailLines, timestamps, limitBytes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-testbed-log-'));
  const file = path.join(dir, '0.log');
  const w = new LogWriter(file);
  const out = new PassThrough();
  const err = new PassThrough();
  w.attach(out, 'stdout');
  w.attach(err, 'stderr');
  out.write('one\ntw');
  err.write('e1\n');
  out.write('o\nthree');
  out.end();
  err.end();
  await new Promise((r) => setTimeout(r, 50));
  const read = async (opts: Partial<Parameters<typeof serveLog>[1]>): Promise<string> => {
    const sink = new PassThrough();
    let text = '';
    sink.on('data', (d: Buffer) => (text += d.toString()));
    await serveLog(file, { follow: false, timestamps: false, ...opts }, sink, () => true);
    return text;
  };
  expect(await read({})).toBe('one\ne1\ntwo\nthree');
  expect(await read({ tailLines: 2 })).toBe('two\nthree');
  expect(await read({ limitBytes: 5 })).toBe('one\ne');
  expect(await read({ tailLines: 1, timestamps: true })).toMatch(/^\S+Z three$/);
  fs.rmSync(dir, { recursive: true, force: true });
});
