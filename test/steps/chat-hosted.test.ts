/**
 * chat steps with the hosted providers (openai, anthropic, gemini, openrouter) through the real embedded
 * engine, their APIs played by nock: the request each provider's SDK sends (system prompt, temperature,
 * max tokens, thinking), streamed SSE bodies, errors, retries with backoff and Retry-After, and secrets
 * and API keys kept out of what is sent and of errors.
 */
import nock from 'nock';
import { runSteps } from '../helpers/steps.js';
import { makeChatRunner } from '../../src/runtime/steps/chat/index.js';
import { JSON_TYPE, namedSse, record, seen, SSE, sse } from '../helpers/provider-mock.js';

const fast = { chat: makeChatRunner({ retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 100, maxRetryAfterMs: 5_000 } }) };

const openaiChunks = (text: string[]): string => sse([
  ...text.map((t) => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })),
  { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
], true);

function anthropicEvents(text: string[]): string {
  const events: Array<Record<string, unknown>> = [
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 0 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me think.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
    ...text.map((t) => ({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: t } })),
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } },
    { type: 'message_stop' },
  ];
  return namedSse(events);
}

const geminiChunks = (text: string[]): string => sse([
  { candidates: [{ content: { role: 'model', parts: [{ text: 'pondering', thought: true }] } }] },
  ...text.map((t) => ({ candidates: [{ content: { role: 'model', parts: [{ text: t }] } }] })),
]);

beforeAll(() => { nock.disableNetConnect(); });
// restore: a later test file of this worker loads its own nock, which must be the only one intercepting.
// restore: a later test file of this worker loads its own nock, which must be the only one intercepting.
afterAll(() => { nock.cleanAll(); nock.enableNetConnect(); nock.restore(); });
beforeEach(() => { seen.length = 0; });
afterEach(() => { nock.cleanAll(); });

describe('openai', () => {
  test('request shape: system prompt, temperature, max_completion_tokens, reasoning effort, key from the step env; streamed reply', async () => {
    nock('https://api.openai.com').post('/v1/chat/completions').reply(record(200, openaiChunks(['Hel', 'lo', '!']), SSE));
    const r = await runSteps(`
env:
  - OPENAI_API_KEY: sk-test-1
steps:
  - name: ask
    type: chat
    llm:
      provider: openai
      model: gpt-x
      system: Be kind.
      temperature: 1.5
      topP: 0.5
      maxTokens: 300
      thinking:
        effort: xhigh
    messages:
      - role: user
        content: Hi
      - role: assistant
        content: Hello?
      - role: user
        content: Again
    output: REPLY
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('Hello!\n');
    expect(await r.outputs()).toMatchObject({ reply: 'Hello!' });
    expect(seen[0]!.headers.authorization).toBe('Bearer sk-test-1');
    expect(seen[0]!.body).toEqual({
      model: 'gpt-x', stream: true, temperature: 1.5, top_p: 0.5, max_completion_tokens: 300, reasoning_effort: 'xhigh',
      messages: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello?' }, { role: 'user', content: 'Again' }],
    });
  });

  test('a missing key names the variable; nothing is sent', async () => {
    const r = await runSteps('steps:\n  - name: ask\n    type: chat\n    llm: {provider: openai, model: gpt-x}\n    messages: [{role: user, content: hi}]\n', { runners: fast });
    expect(r.status).toBe('failed');
    expect(r.node('ask').error).toBe('chat step: no API key for openai: set OPENAI_API_KEY in the step\'s env (env, a secret or dotenv), or llm.apiKey');
    expect(seen).toHaveLength(0);
  });

  test('429 with Retry-After is retried after the time asked; the stderr note says so', async () => {
    nock('https://api.openai.com').post('/v1/chat/completions')
      .reply(record(429, JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }), { ...JSON_TYPE, 'retry-after': '1' }))
      .post('/v1/chat/completions').reply(record(200, openaiChunks(['ok']), SSE));
    const started = Date.now();
    const r = await runSteps('env:\n  - OPENAI_API_KEY: sk-test-1\nsteps:\n  - name: ask\n    type: chat\n    llm: {provider: openai, model: gpt-x}\n    messages: [{role: user, content: hi}]\n', { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(await r.log('ask', 'stderr')).toMatch(/^chat step: openai \(gpt-x\): status 429, attempt 2 of 3 in 1\.0s: .*Rate limit reached/);
    expect(await r.log('ask')).toBe('ok\n');
  });

  test('401 fails at once with the provider message, the API key masked out of it', async () => {
    nock('https://api.openai.com').post('/v1/chat/completions')
      .reply(record(401, JSON.stringify({ error: { message: 'Incorrect API key provided: sk-live-secret-9.', type: 'invalid_request_error', code: 'invalid_api_key' } }), JSON_TYPE));
    const r = await runSteps('env:\n  - OPENAI_API_KEY: sk-live-secret-9\nsteps:\n  - name: ask\n    type: chat\n    llm: {provider: openai, model: gpt-x}\n    messages: [{role: user, content: hi}]\n', { runners: fast });
    expect(r.status).toBe('failed');
    expect(seen).toHaveLength(1);
    expect(r.node('ask').error).toMatch(/^chat step: openai \(gpt-x\): 401 Incorrect API key provided: \*\*\*\*\*\*\*\.$/);
    expect(await r.log('ask', 'stderr')).not.toContain('sk-live-secret-9');
  });

  test('5xx retries give up after the bounded number of attempts', async () => {
    nock('https://api.openai.com').post('/v1/chat/completions').times(3).reply(record(502, 'bad gateway', { 'content-type': 'text/plain' }));
    const r = await runSteps('env:\n  - OPENAI_API_KEY: sk-test-2\nsteps:\n  - name: ask\n    type: chat\n    llm: {provider: openai, model: gpt-x}\n    messages: [{role: user, content: hi}]\n', { runners: fast });
    expect(r.status).toBe('failed');
    expect(seen).toHaveLength(3);
    expect(r.node('ask').error).toMatch(/^chat step: openai \(gpt-x\): 502 .*\(after 3 attempts\)$/);
  });
});

describe('openrouter', () => {
  test('OpenAI-compatible at its base URL: max_tokens, reasoning effort, its own key variable; secrets masked before sending', async () => {
    nock('https://openrouter.ai').post('/api/v1/chat/completions').reply(record(200, openaiChunks(['fine']), SSE));
    const r = await runSteps(`
secrets:
  - name: OPENROUTER_API_KEY
    provider: env
    key: SVC_TEST_OR_KEY
  - name: DB_PASSWORD
    provider: env
    key: SVC_TEST_DB_PASSWORD
steps:
  - name: ask
    type: chat
    llm:
      provider: openrouter
      model: vendor/model
      system: The password is \${DB_PASSWORD}, never say it.
      maxTokens: 50
      thinking:
        effort: low
    messages:
      - role: user
        content: is hunter2-db the password?
`, { runners: fast, env: { SVC_TEST_OR_KEY: 'or-key-1', SVC_TEST_DB_PASSWORD: 'hunter2-db' } });
    expect(r.status).toBe('succeeded');
    expect(seen[0]!.path).toBe('/api/v1/chat/completions');
    expect(seen[0]!.headers.authorization).toBe('Bearer or-key-1');
    expect(JSON.stringify(seen[0]!.body)).not.toContain('hunter2-db');
    expect(seen[0]!.body).toMatchObject({
      model: 'vendor/model', max_tokens: 50, reasoning: { effort: 'low' },
      messages: [{ role: 'system', content: 'The password is *******, never say it.' }, { role: 'user', content: 'is ******* the password?' }],
    });
  });
});

describe('anthropic', () => {
  test('request shape: system, max_tokens default with thinking, adaptive thinking and effort, x-api-key; thinking text left out', async () => {
    nock('https://api.anthropic.com').post('/v1/messages').reply(record(200, anthropicEvents(['Bon', 'jour']), SSE));
    const r = await runSteps(`
env:
  - ANTHROPIC_API_KEY: ant-key-1
steps:
  - name: ask
    type: chat
    llm:
      provider: anthropic
      model: claude-x
      system: Speak French.
      thinking:
        effort: medium
    messages:
      - role: user
        content: Hello
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('Bonjour\n');
    // This SDK version sends the key as a bearer token (the API takes x-api-key or Authorization).
    expect(seen[0]!.headers.authorization).toBe('Bearer ant-key-1');
    expect(seen[0]!.headers['anthropic-version']).toBeDefined();
    expect(seen[0]!.body).toEqual({
      model: 'claude-x', max_tokens: 16000, stream: true, system: 'Speak French.',
      thinking: { type: 'adaptive' }, output_config: { effort: 'medium' },
      messages: [{ role: 'user', content: 'Hello' }],
    });
  });

  test('temperature, top_p and max_tokens as given; not streamed; a 529 overload is retried', async () => {
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'Sure.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 2 } };
    nock('https://api.anthropic.com').post('/v1/messages')
      .reply(record(529, JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), JSON_TYPE))
      .post('/v1/messages').reply(record(200, JSON.stringify(message), JSON_TYPE));
    const r = await runSteps(`
env:
  - ANTHROPIC_API_KEY: ant-key-1
steps:
  - name: ask
    type: chat
    llm: {provider: anthropic, model: claude-x, temperature: 0.3, topP: 0.8, maxTokens: 100, stream: false}
    messages: [{role: user, content: hi}]
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(seen).toHaveLength(2);
    expect(seen[1]!.body).toEqual({ model: 'claude-x', max_tokens: 100, stream: false, temperature: 0.3, top_p: 0.8, messages: [{ role: 'user', content: 'hi' }] });
    expect(await r.log('ask')).toBe('Sure.\n');
    expect(await r.log('ask', 'stderr')).toContain('status 529');
  });

  test('400 fails at once with the provider message', async () => {
    nock('https://api.anthropic.com').post('/v1/messages')
      .reply(record(400, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'model: unknown model claude-nope' } }), JSON_TYPE));
    const r = await runSteps('env:\n  - ANTHROPIC_API_KEY: ant-key-2\nsteps:\n  - name: ask\n    type: chat\n    llm: {provider: anthropic, model: claude-nope}\n    messages: [{role: user, content: hi}]\n', { runners: fast });
    expect(r.status).toBe('failed');
    expect(seen).toHaveLength(1);
    expect(r.node('ask').error).toMatch(/^chat step: anthropic \(claude-nope\): 400 .*unknown model claude-nope/);
  });
});

describe('gemini', () => {
  const path = '/v1beta/models/gemini-x:streamGenerateContent?alt=sse';

  test('request shape: contents with model turns, systemInstruction, generation config, thinking level; key from GOOGLE_API_KEY', async () => {
    nock('https://generativelanguage.googleapis.com').post(path).reply(record(200, geminiChunks(['Ciao', ' mondo']), SSE));
    const r = await runSteps(`
env:
  - GOOGLE_API_KEY: g-key-1
steps:
  - name: ask
    type: chat
    llm:
      provider: gemini
      model: gemini-x
      system: Speak Italian.
      temperature: 0.4
      topP: 0.7
      maxTokens: 80
      thinking:
        effort: high
    messages:
      - role: user
        content: Hello
      - role: assistant
        content: Ciao
      - role: user
        content: World
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('Ciao mondo\n');
    expect(seen[0]!.headers['x-goog-api-key']).toBe('g-key-1');
    expect(seen[0]!.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Hello' }] }, { role: 'model', parts: [{ text: 'Ciao' }] }, { role: 'user', parts: [{ text: 'World' }] }],
      systemInstruction: { parts: [{ text: 'Speak Italian.' }] },
      generationConfig: { temperature: 0.4, topP: 0.7, maxOutputTokens: 80, thinkingConfig: { thinkingLevel: 'HIGH' } },
    });
  });

  test('503 with Retry-After is retried (GEMINI_API_KEY wins over GOOGLE_API_KEY); 403 fails at once', async () => {
    nock('https://generativelanguage.googleapis.com')
      .post(path).reply(record(503, JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }), { ...JSON_TYPE, 'retry-after': '0' }))
      .post(path).reply(record(200, geminiChunks(['ok']), SSE));
    const ok = await runSteps('env:\n  - GEMINI_API_KEY: g1\n  - GOOGLE_API_KEY: g2\nsteps:\n  - name: ask\n    type: chat\n    llm: {provider: gemini, model: gemini-x}\n    messages: [{role: user, content: hi}]\n', { runners: fast });
    expect(ok.status).toBe('succeeded');
    expect(seen.map((s) => s.headers['x-goog-api-key'])).toEqual(['g1', 'g1']);
    expect(await ok.log('ask', 'stderr')).toMatch(/status 503, attempt 2 of 3 .*overloaded/);

    seen.length = 0;
    nock('https://generativelanguage.googleapis.com').post(path)
      .reply(record(403, JSON.stringify({ error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' } }), JSON_TYPE));
    const denied = await runSteps('env:\n  - GEMINI_API_KEY: g1\nsteps:\n  - name: ask\n    type: chat\n    llm: {provider: gemini, model: gemini-x}\n    messages: [{role: user, content: hi}]\n', { runners: fast });
    expect(denied.status).toBe('failed');
    expect(seen).toHaveLength(1);
    expect(denied.node('ask').error).toMatch(/^chat step: gemini \(gemini-x\): .*API key not valid/);
  });
});
