import { chatSettings } from './settings.js';

const llm = (fields: Record<string, unknown>) => ({ llm: { model: 'm', stream: true, tools: [], maxToolIterations: 10, ...fields } });

describe('chat settings', () => {
  test('the key: llm.apiKey first, then the provider\'s variables in order; local runtimes need none', () => {
    expect(chatSettings(llm({ provider: 'gemini', apiKey: 'given' }), { GEMINI_API_KEY: 'g' }).apiKey).toBe('given');
    expect(chatSettings(llm({ provider: 'gemini' }), { GOOGLE_API_KEY: 'o', GEMINI_API_KEY: 'g' }).apiKey).toBe('g');
    expect(chatSettings(llm({ provider: 'gemini' }), { GOOGLE_API_KEY: 'o' }).apiKey).toBe('o');
    expect(chatSettings(llm({ provider: 'ollama' }), { OPENAI_API_KEY: 'x' }).apiKey).toBeUndefined();
    expect(() => chatSettings(llm({ provider: 'anthropic' }), {})).toThrow('no API key for anthropic: set ANTHROPIC_API_KEY in the step\'s env');
  });

  test('aliases resolve to local with their base URL; baseURL overrides it', () => {
    expect(chatSettings(llm({ provider: 'LMStudio' }), {})).toMatchObject({ providerName: 'LMStudio', provider: { name: 'local', api: 'openai' }, baseURL: 'http://localhost:1234/v1' });
    expect(chatSettings(llm({ provider: 'vllm', baseURL: 'http://gpu:9000/v1' }), {}).baseURL).toBe('http://gpu:9000/v1');
  });

  test('thinking: off when absent or disabled, an effort when given', () => {
    expect(chatSettings(llm({ provider: 'local' }), {}).thinking).toBeUndefined();
    expect(chatSettings(llm({ provider: 'local', thinking: { enabled: false, effort: 'high' } }), {}).thinking).toBeUndefined();
    expect(chatSettings(llm({ provider: 'local', thinking: { enabled: true } }), {}).thinking).toEqual({});
    expect(chatSettings(llm({ provider: 'local', thinking: { enabled: true, effort: 'low' } }), {}).thinking).toEqual({ effort: 'low' });
  });

  test.each([
    [{ provider: 'nope' }, 'unknown provider "nope"'],
    [{ provider: '' }, 'llm.provider is required'],
    [{ provider: 'local', model: '' }, 'llm.model is required'],
    [{ provider: 'local', baseURL: 'localhost:11434' }, 'llm.baseURL "localhost:11434" is not an http or https URL'],
    [{ provider: 'local', temperature: 3 }, 'llm.temperature must be a number from 0 to 2'],
    [{ provider: 'local', thinking: { effort: 'max' } }, 'llm.thinking.effort must be one of low, medium, high, xhigh'],
    [{ provider: 'local', tools: 'lookup' }, 'llm.tools must be a list of DAG names'],
    [{ provider: 'local', tools: ['lookup'], maxToolIterations: 0 }, 'llm.maxToolIterations must be a number from 1 to'],
    [{ provider: 'local', tools: ['lookup'], maxToolIterations: 2.5 }, 'llm.maxToolIterations must be a whole number'],
  ])('%j is a clear error', (fields, message) => {
    expect(() => chatSettings(llm(fields), {})).toThrow(message);
  });

  test('no llm block at all', () => {
    expect(() => chatSettings({}, {})).toThrow('chat step: llm is required');
  });
});
