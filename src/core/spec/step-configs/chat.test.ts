import { loadDagText } from '../load.js';
import { effectiveConfig } from '../step-config.js';
import { checkChat } from './chat.js';

/** The problems of the DAG's first step, as `field: message`. */
function problems(yaml: string): string[] {
  const loaded = loadDagText(yaml, { fileName: 'd' });
  if (!loaded.dag) throw new Error(loaded.errors.join('; '));
  const step = loaded.dag.steps[0]!;
  return checkChat(effectiveConfig(loaded.dag, step), step).map((p) => `${p.field}: ${p.message}`);
}

const MSG = '    messages: [{role: user, content: hi}]\n';

describe('chat step config', () => {
  test.each([
    ['a step-level block', 'steps:\n  - type: chat\n    llm: {provider: openai, model: gpt-x}\n' + MSG],
    ['the DAG-level block', 'llm: {provider: anthropic, model: claude-x}\nsteps:\n  - type: chat\n' + MSG],
    ['an alias of local with a base URL', 'steps:\n  - type: chat\n    llm: {provider: Ollama, model: m, baseURL: "http://10.0.0.2:11434/v1"}\n' + MSG],
    ['variables count as given', 'steps:\n  - type: chat\n    llm: {provider: "${P}", model: "${M}", baseURL: "${URL}"}\n' + MSG],
  ])('%s is valid', (_n, yaml) => {
    expect(problems(yaml)).toEqual([]);
  });

  test('an llm block is required', () => {
    expect(problems('steps:\n  - type: chat\n' + MSG)).toEqual(['llm: is required for chat steps (a step-level llm block or the DAG-level one)']);
  });

  test('a step-level block replaces the DAG one wholly: its missing model is reported', () => {
    expect(problems('llm: {provider: openai, model: gpt-x}\nsteps:\n  - type: chat\n    llm: {provider: gemini}\n' + MSG))
      .toEqual(['llm.model: is required for chat steps (this step\'s llm block replaces the DAG-level one wholly)']);
  });

  test('unknown provider, bad base URL, config fields', () => {
    expect(problems('steps:\n  - type: chat\n    llm: {provider: skynet, model: m, baseURL: "ftp://x"}\n    config: {prompt: hi}\n' + MSG)).toEqual([
      'config.prompt: is not a chat step field (chat steps are written with llm and messages)',
      expect.stringMatching(/^llm\.provider: unknown provider "skynet" \(one of openai, anthropic, gemini, openrouter, local, ollama, /),
      'llm.baseURL: "ftp://x" is not an http or https URL (for example http://localhost:11434/v1)',
    ]);
  });

  test('llm.tools must name DAGs (a ${VAR} is checked when the step runs)', () => {
    expect(problems('steps:\n  - type: chat\n    llm: {provider: openai, model: gpt-x, tools: [lookup, "has space", "${T}"]}\n' + MSG))
      .toEqual(['llm.tools: "has space" is not a DAG name (letters, digits, _, . and -, at most 40 characters)']);
    expect(problems('steps:\n  - type: chat\n    llm: {provider: openai, model: gpt-x, tools: []}\n' + MSG)).toEqual([]);
  });

  test('svc validate reports a missing provider and messages with the step named', () => {
    const loaded = loadDagText('steps:\n  - name: ask\n    type: chat\n    llm: {model: m}\n', { fileName: 'd' });
    expect(loaded.errors).toEqual(expect.arrayContaining([
      expect.stringContaining('messages: is required for chat steps'),
      expect.stringMatching(/steps\[0\] \(ask\)\.llm\.provider: is required for chat steps/),
    ]));
  });
});
