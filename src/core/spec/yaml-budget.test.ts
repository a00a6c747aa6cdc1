import { parseDocument } from 'yaml';
import { loadDagText } from './load.js';
import { expansionProblem, MAX_EXPANDED_BYTES } from './yaml-budget.js';

const problem = (text: string, budget?: number): string | undefined => expansionProblem(parseDocument(text, { merge: true }), budget);

describe('expansionProblem', () => {
  it('passes a document whose aliases expand within the budget', () => {
    expect(problem('a: &x [1, 2]\nb: *x\nc: *x\n', 100)).toBeUndefined();
  });

  it('counts each use of an alias: a long scalar named many times is over', () => {
    const text = `a: &x "${'l'.repeat(1000)}"\nb: [${Array(50).fill('*x').join(', ')}]\n`;
    expect(problem(text, 10_000)).toMatch(/expands to more than 10000 bytes \(the expansion budget/);
    expect(problem(text, 100_000)).toBeUndefined();
  });

  it('counts nested aliases multiplied out (billion laughs)', () => {
    const lines = ['a0: &a0 [lol]'];
    for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
    expect(problem(lines.join('\n'))).toContain(String(MAX_EXPANDED_BYTES));
  });

  it('counts merge keys', () => {
    const text = `base: &b { k: "${'v'.repeat(1000)}" }\n${Array.from({ length: 20 }, (_, i) => `m${i}: { <<: *b }`).join('\n')}\n`;
    expect(problem(text, 10_000)).toBeDefined();
  });

  it('refuses an alias inside the node it names: a value with no end', () => {
    expect(problem('a: &x [1, *x]\n', 100)).toMatch(/an alias names a node that contains it/);
    expect(problem('a: &x { b: { c: *x } }\n')).toMatch(/an alias names a node that contains it/);
    expect(problem('a: &x [1]\nb: [*x, *x]\n')).toBeUndefined();
  });
});

describe('loadDagText with the expansion budget', () => {
  it('refuses an over-budget spec without building its value (no dag)', () => {
    const steps = Array.from({ length: 100 }, (_, i) => `  - { name: s${i}, command: *big }`).join('\n');
    const file = loadDagText(`x-big: &big "${'e'.repeat(100_000)}"\nsteps:\n${steps}\n`, { fileName: 'big' });
    expect(file.dag).toBeUndefined();
    expect(file.errors).toEqual([expect.stringContaining('expansion budget')]);
  });

  it('refuses a self-naming alias without building its value', () => {
    const file = loadDagText('steps:\n  - name: a\n    command: "true"\n    env: &e [*e]\n', { fileName: 'loop' });
    expect(file.dag).toBeUndefined();
    expect(file.errors).toEqual([expect.stringContaining('an alias names a node that contains it')]);
  });

  it('loads a spec with a few aliases as before', () => {
    const file = loadDagText('env: &e [{ A: "1" }]\nsteps:\n  - name: a\n    command: echo\n    env: *e\n', { fileName: 'ok' });
    expect(file.errors).toEqual([]);
    expect(file.dag?.steps[0]?.env).toBeDefined();
  });
});
