import { loadDagText } from '../spec/load.js';
import { chatAncestors, inheritedHistory } from './history.js';

const dag = loadDagText(`
type: graph
llm: {provider: local, model: m}
steps:
  - name: a
    type: chat
    messages: [{role: system, content: only a}, {role: user, content: "a \${X}"}]
  - name: b
    type: chat
    depends: a
    messages: [{role: user, content: b}]
  - name: c
    type: chat
    depends: a
    messages: [{role: user, content: c}]
  - name: shell
    depends: c
    command: echo
  - name: d
    type: chat
    depends: [b, c, shell]
    messages: [{role: user, content: d}]
`, { fileName: 'h' }).dag!;
const step = (n: string) => dag.steps.find((s) => s.name === n)!;

describe('inherited chat history', () => {
  test('ancestors through chat steps only, oldest first, each once', () => {
    expect(chatAncestors(dag, step('d')).map((s) => s.name)).toEqual(['a', 'b', 'c']);
    expect(chatAncestors(dag, step('a'))).toEqual([]);
  });

  test('messages (no system ones) expanded, then the reply as written; a step without a reply adds nothing', () => {
    const replies: Record<string, string> = { a: 'A says ${X}\n', c: 'C' };
    const h = inheritedHistory(chatAncestors(dag, step('d')), (n) => replies[n], (s) => s.replace('${X}', 'x'));
    expect(h).toEqual([
      { role: 'user', content: 'a x' }, { role: 'assistant', content: 'A says ${X}' },
      { role: 'user', content: 'c' }, { role: 'assistant', content: 'C' },
    ]);
  });
});
