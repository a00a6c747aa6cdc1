/**
 * Chat tool calling with the hosted providers (ADR 0021), their APIs played by nock: the tools each
 * SDK sends, a streamed tool call read whole, and the second request carrying the model's reply as it
 * came (Anthropic's thinking block with its signature, Gemini's thought signature) and the results in
 * the provider's own shape. The tool is a real DAG run by the embedded engine.
 */
import nock from 'nock';
import { makeChatRunner } from '../../src/runtime/steps/chat/index.js';
import { namedSse, record, seen, SSE, sse } from '../helpers/provider-mock.js';
import { runSteps } from '../helpers/steps.js';

const fast = { chat: makeChatRunner({ retry: { attempts: 2, baseDelayMs: 20, maxDelayMs: 100, maxRetryAfterMs: 5_000 } }) };

const TOOL = `---
name: weather
description: Tells the weather.
params: CITY=Paris
steps:
  - command: echo "rain in \${CITY}"
    output: FORECAST
`;

const dag = (provider: string, keyEnv: string): string => `
env:
  - ${keyEnv}: key-1
steps:
  - name: ask
    type: chat
    llm: {provider: ${provider}, model: m-1, tools: [weather]}
    messages: [{role: user, content: Weather in Oslo?}]
${TOOL}`;

/** What the tool gives back for Oslo (the sub-DAG result), its run id left out. */
const forecast = (content: string): unknown => {
  const r = JSON.parse(content) as Record<string, unknown>;
  return { ...r, dagRunId: typeof r.dagRunId };
};
const OSLO = { name: 'weather', dagRunId: 'string', params: 'CITY=Oslo', outputs: { forecast: 'rain in Oslo', FORECAST: 'rain in Oslo' }, status: 'succeeded' };

beforeAll(() => { nock.disableNetConnect(); });
// restore: a later test file of this worker loads its own nock, which must be the only one intercepting.
afterAll(() => { nock.cleanAll(); nock.enableNetConnect(); nock.restore(); });
beforeEach(() => { seen.length = 0; });
afterEach(() => { nock.cleanAll(); });

test('openai: tools as functions, a streamed call put together, the reply and a tool message sent back', async () => {
  const chunk = (delta: unknown, finish: string | null = null): unknown => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm-1', choices: [{ index: 0, delta, finish_reason: finish }] });
  const calling = sse([
    chunk({ role: 'assistant', content: 'Checking.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"CI' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'TY":"Oslo"}' } }] }),
    chunk({}, 'tool_calls'),
  ], true);
  nock('https://api.openai.com').post('/v1/chat/completions').reply(record(200, calling, SSE))
    .post('/v1/chat/completions').reply(record(200, sse([chunk({ content: 'Rain.' }), chunk({}, 'stop')], true), SSE));
  const r = await runSteps(dag('openai', 'OPENAI_API_KEY'), { runners: fast });
  expect(r.status).toBe('succeeded');
  expect(await r.log('ask')).toBe('Checking.\nRain.\n');
  expect(seen[0]!.body).toMatchObject({
    tool_choice: 'auto',
    tools: [{ type: 'function', function: { name: 'weather', description: 'Tells the weather.', parameters: { type: 'object', properties: { CITY: { type: 'string' } } } } }],
  });
  const [, reply, tool] = seen[1]!.body.messages as Array<Record<string, unknown>>;
  expect(reply).toEqual({ role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"CITY":"Oslo"}' } }] });
  expect(tool).toMatchObject({ role: 'tool', tool_call_id: 'call_a' });
  expect(forecast(tool!.content as string)).toEqual(OSLO);
});

test('anthropic: tools with input_schema, tool_use streamed as JSON pieces, thinking sent back with its signature, tool_result', async () => {
  const calling = namedSse([
    { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm-1', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 0 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Need the tool.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-1' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"CITY": ' } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } },
    { type: 'content_block_stop', index: 1 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } },
    { type: 'message_stop' },
  ]);
  const answering = namedSse([
    { type: 'message_start', message: { id: 'msg_2', type: 'message', role: 'assistant', model: 'm-1', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 0 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Rain.' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } },
    { type: 'message_stop' },
  ]);
  nock('https://api.anthropic.com').post('/v1/messages').reply(record(200, calling, SSE)).post('/v1/messages').reply(record(200, answering, SSE));
  const r = await runSteps(dag('anthropic', 'ANTHROPIC_API_KEY'), { runners: fast });
  expect(r.status).toBe('succeeded');
  expect(await r.log('ask')).toBe('Rain.\n');
  expect(seen[0]!.body).toMatchObject({
    tool_choice: { type: 'auto' },
    tools: [{ name: 'weather', description: 'Tells the weather.', input_schema: { type: 'object', properties: { CITY: { type: 'string' } } } }],
  });
  const [, reply, results] = seen[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
  expect(reply!.role).toBe('assistant');
  expect(reply!.content).toEqual([
    { type: 'thinking', thinking: 'Need the tool.', signature: 'sig-1' },
    { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { CITY: 'Oslo' } },
  ]);
  expect(results!.role).toBe('user');
  expect(results!.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.any(String), is_error: false }]);
  expect(forecast(results!.content[0]!.content as string)).toEqual(OSLO);
});

test('gemini: function declarations, a functionCall with its thought signature sent back, a functionResponse', async () => {
  const path = '/v1beta/models/m-1:streamGenerateContent?alt=sse';
  const calling = sse([
    { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { CITY: 'Oslo' } }, thoughtSignature: 'c2ln' }] }, finishReason: 'STOP' }] },
  ]);
  nock('https://generativelanguage.googleapis.com').post(path).reply(record(200, calling, SSE))
    .post(path).reply(record(200, sse([{ candidates: [{ content: { role: 'model', parts: [{ text: 'Rain.' }] }, finishReason: 'STOP' }] }]), SSE));
  const r = await runSteps(dag('gemini', 'GEMINI_API_KEY'), { runners: fast });
  expect(r.status).toBe('succeeded');
  expect(await r.log('ask')).toBe('Rain.\n');
  expect(seen[0]!.body).toMatchObject({
    tools: [{ functionDeclarations: [{ name: 'weather', description: 'Tells the weather.', parametersJsonSchema: { type: 'object', properties: { CITY: { type: 'string' } } } }] }],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
  });
  const [, reply, results] = seen[1]!.body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  expect(reply).toEqual({ role: 'model', parts: [{ functionCall: { name: 'weather', args: { CITY: 'Oslo' } }, thoughtSignature: 'c2ln' }] });
  expect(results!.role).toBe('user');
  const response = results!.parts[0]!.functionResponse as { name: string; response: { output: string }; id?: string };
  expect(response.name).toBe('weather');
  expect(response.id).toBeUndefined();
  expect(forecast(response.response.output)).toEqual(OSLO);
});
