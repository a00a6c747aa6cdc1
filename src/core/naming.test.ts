import { dagObjectName, dagRunMetadata, dagRunName, execName, identityHash, isDnsLabel, isLabelValue, labelValue, slug, type ExecIdentity } from './naming.js';
import { rng } from './spec/testing.js';

const exec = (over: Partial<ExecIdentity> = {}): ExecIdentity => ({ dagName: 'etl', dagRunId: '0193a8f2c1d4e5f6a7b8c9d0e1f2', attemptId: 'a1', node: 'extract', attempt: 0, ...over });

describe('naming', () => {
  test('FNV-1a 64 over the UTF-8 bytes (known vectors), 13 base-36 digits', () => {
    // FNV-1a 64 of "" is the offset basis; of "a" it is 0xaf63dc4c8601ec8c.
    expect(identityHash([''])).toBe(0xcbf29ce484222325n.toString(36).padStart(13, '0'));
    expect(identityHash(['a'])).toBe(0xaf63dc4c8601ec8cn.toString(36).padStart(13, '0'));
    expect(identityHash(['a', 'b'])).not.toBe(identityHash(['a\0b', '']));
    expect(identityHash(['é'])).toHaveLength(13);
  });

  test.each([
    ['hello', '0193a8f2c1d4e5f6a7b8c9d0e1f2', /^hello-0193a8f2c1d4e5f6a7b8c9d0e1f2-[0-9a-z]{13}$/],
    ['My_DAG.v2', 'Run_1', /^my-dag-v2-run-1-[0-9a-z]{13}$/],
    ['_', '__', /^[0-9a-z]{13}$/],
    ['x'.repeat(40), 'y'.repeat(64), /^x{20}-y{28}-[0-9a-z]{13}$/],
  ])('dagRunName(%s, %s) is a valid, readable object name', (dag, run, shape) => {
    const name = dagRunName(dag, run);
    expect(name).toMatch(shape);
    expect(isDnsLabel(name)).toBe(true);
    expect(dagRunName(dag, run)).toBe(name);
  });

  test('identities that read alike never share a name (case, folding, dashes, truncation)', () => {
    const pairs: Array<[[string, string], [string, string]]> = [
      [['a-b', 'c'], ['a', 'b-c']], [['Hello', '1'], ['hello', '1']], [['a_b', '1'], ['a.b', '1']],
      [['x'.repeat(40), 'y'.repeat(60) + '1'], ['x'.repeat(40), 'y'.repeat(60) + '2']],
    ];
    for (const [p, q] of pairs) expect(dagRunName(...p)).not.toBe(dagRunName(...q));
  });

  test('random identities: always valid, and distinct for distinct identities', () => {
    const rnd = rng(7);
    const alphabet = 'aB_-.9zZ0';
    const word = (n: number) => Array.from({ length: 1 + Math.floor(rnd() * n) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
    const seen = new Map<string, string>();
    for (let i = 0; i < 3000; i++) {
      const id = [word(40), word(64)] as const;
      const name = dagRunName(...id);
      expect(isDnsLabel(name)).toBe(true);
      const before = seen.get(name);
      if (before !== undefined) expect(before).toBe(id.join('\0'));
      seen.set(name, id.join('\0'));
      expect(isLabelValue(labelValue(id[0]))).toBe(true);
      const e = execName(exec({ dagName: id[0], node: word(60), item: i % 3 === 0 ? i : undefined }));
      expect(isDnsLabel(e)).toBe(true);
    }
  });

  test('execName: deterministic per execution, different for every part of the identity', () => {
    const base = execName(exec());
    expect(base).toMatch(/^etl-extract-[0-9a-z]{13}$/);
    expect(execName(exec())).toBe(base);
    const others = [exec({ attempt: 1 }), exec({ item: 0 }), exec({ attemptId: 'a2' }), exec({ dagRunId: 'other' }), exec({ node: 'Extract' }), exec({ probe: 'pre0-x' }), exec({ node: '', probe: 'pre0-x' })].map(execName);
    expect(new Set([base, ...others]).size).toBe(8);
  });

  test('dagObjectName keeps a clean fileName and hashes the others; labelValue keeps valid values', () => {
    expect(dagObjectName('etl-daily')).toBe('etl-daily');
    expect(dagObjectName('ETL_daily')).toMatch(/^etl-daily-[0-9a-z]{13}$/);
    expect(dagObjectName('etl_daily')).not.toBe(dagObjectName('etl-daily'));
    expect(isDnsLabel(dagObjectName('_'))).toBe(true);
    expect(labelValue('My_DAG.v2')).toBe('My_DAG.v2');
    expect(labelValue('_x')).toMatch(/^x-[0-9a-z]{13}$/);
    expect(labelValue('x'.repeat(64))).toHaveLength(48 + 1 + 13);
    expect(slug('--A__b--', 10)).toBe('a-b');
  });

  test('dagRunMetadata: the name, selector labels (root, parent) and the exact identity in annotations', () => {
    const m = dagRunMetadata({ dagName: '_child', dagRunId: 'r1' }, { name: 'main', dagRunId: 'r0' }, { name: 'main', dagRunId: 'r0' });
    expect(m.name).toBe(dagRunName('_child', 'r1'));
    expect(m.labels).toEqual({ 'svc.io/dag': labelValue('_child'), 'svc.io/dag-run': 'r1', 'svc.io/root-dag-run': dagRunName('main', 'r0'), 'svc.io/parent-dag-run': dagRunName('main', 'r0') });
    expect(m.annotations).toEqual({ 'svc.io/dag-name': '_child', 'svc.io/dag-run-id': 'r1' });
    for (const v of Object.values(m.labels)) expect(isLabelValue(v)).toBe(true);
  });
});
