import { loadDagText } from './load.js';
import { callDepthProblem, findCallCycle, literalCallTargets, type CallableDag } from './calls.js';
import type { DagDefinition } from './types.js';

const def = (name: string, ...calls: string[]): DagDefinition =>
  ({ name, steps: calls.map((call, i) => ({ name: `s${i}`, call })), handlerOn: {} }) as unknown as DagDefinition;
const dag = (d: DagDefinition, locals: DagDefinition[] = []): CallableDag => ({ definition: d, localDags: Object.fromEntries(locals.map((l) => [l.name, l])) });

describe('literalCallTargets', () => {
  test('names written out, once each; names from variables or backquotes are not followed', () => {
    expect(literalCallTargets(def('a', 'b', 'b', '${X}', '`echo c`', 'c'))).toEqual(['b', 'c']);
  });

  test("chat steps' tools are calls too: the step's llm, else the DAG's", () => {
    const loaded = loadDagText(`
llm: {provider: local, model: m, tools: [dagwide, b]}
steps:
  - {name: own, type: chat, llm: {provider: local, model: m, tools: [mine, "\${T}"]}, messages: [{role: user, content: hi}]}
  - {name: inherits, type: chat, messages: [{role: user, content: hi}]}
  - {name: sub, call: b}
`, { fileName: 'a' });
    expect(literalCallTargets(loaded.dag!).sort()).toEqual(['b', 'dagwide', 'mine']);
  });
});

describe('findCallCycle', () => {
  const files = new Map<string, CallableDag | undefined>([
    ['b', dag(def('b', 'c'))], ['c', dag(def('c', 'b'))], ['leaf', dag(def('leaf'))], ['gone', undefined],
  ]);
  test.each<[string, CallableDag, string[] | undefined]>([
    ['no calls', dag(def('a')), undefined],
    ['self', dag(def('a', 'a')), ['a', 'a']],
    ['through files', dag(def('a', 'b')), ['a', 'b', 'c', 'b']],
    ['a diamond is no cycle', dag(def('a', 'leaf', 'leaf')), undefined],
    ['a missing target is not followed', dag(def('a', 'gone', 'nowhere')), undefined],
    ['a local DAG that calls itself', dag(def('a', 'l'), [def('l', 'l')]), ['a', 'l', 'l']],
    ['a local DAG shadows a file of that name', dag(def('a', 'b'), [def('b', 'leaf')]), undefined],
  ])('%s', (_, root, chain) => {
    expect(findCallCycle('a', root, files)).toEqual(chain);
  });
});

describe('callDepthProblem', () => {
  test('up to the limit a call goes ahead; beyond it the chain is named', () => {
    expect(callDepthProblem(['a', 'b'], 'c', 2)).toBeUndefined();
    expect(callDepthProblem(['a', 'b', 'c'], 'd', 2)).toBe('sub-DAG calls nest deeper than 2 (SVC_MAX_CALL_DEPTH): a -> b -> c -> d');
  });
});
