/**
 * chat steps with the `local` provider (and its aliases) through the real embedded engine, against a
 * real OpenAI-compatible server on loopback (test/helpers/chat-server.ts): streaming and not, history
 * inherited from dependencies, output capture, secrets masked before sending, retries, errors, timeout.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { RunService } from '../../src/engine/services/run-service.js';
import { embeddedDeps, loadDagFile } from '../../src/main/embedded.js';
import { inProcessLaunchers, STEP_RUNNERS } from '../../src/runtime/steps/index.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { runSteps } from '../helpers/steps.js';
import type { ExecRequest } from '../../src/core/ports/executor.js';
import { makeChatRunner } from '../../src/runtime/steps/chat/index.js';
import { startInProcess } from '../../src/runtime/steps/in-process.js';

const fast = { chat: makeChatRunner({ retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 100, maxRetryAfterMs: 5_000 } }) };

let server: ChatServer;
beforeAll(async () => { server = await startChatServer(); });
afterAll(() => server.close());
beforeEach(() => { server.requests.length = 0; });

describe('chat steps, local provider', () => {
  test('a streamed reply goes to stdout and output; llm fields reach the request; no key means no Authorization', async () => {
    const r = await runSteps(`
params:
  - WHO: Ada
steps:
  - name: ask
    type: chat
    llm:
      provider: local
      model: tiny
      baseURL: ${server.url}
      system: Be brief.
      temperature: 0.2
      topP: 0.9
      maxTokens: 64
    messages:
      - role: system
        content: Answer in English.
      - role: user
        content: Hello from \${WHO}
    output: ANSWER
  - name: use
    command: echo "got \${ANSWER}"
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('You said: Hello from Ada\n');
    expect(await r.log('use')).toBe('got You said: Hello from Ada\n');
    const req = server.requests[0]!;
    expect(req.body).toMatchObject({
      model: 'tiny', stream: true, temperature: 0.2, top_p: 0.9, max_tokens: 64,
      messages: [{ role: 'system', content: 'Be brief.\n\nAnswer in English.' }, { role: 'user', content: 'Hello from Ada' }],
    });
    expect(req.headers.authorization).toBeUndefined();
  });

  test('stream: false sends one request and prints the whole reply; an alias with apiKey sends it as a bearer token', async () => {
    const r = await runSteps(`
steps:
  - name: ask
    type: chat
    llm:
      provider: vllm
      model: tiny
      baseURL: ${server.url}
      apiKey: local-key
      stream: false
      thinking:
        effort: high
    messages:
      - role: user
        content: ping
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('You said: ping\n');
    expect(server.requests[0]!.body).toMatchObject({ stream: false, reasoning_effort: 'high' });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer local-key');
  });

  test('a step continues the conversation of the chat steps it depends on, through a chain, each once', async () => {
    const r = await runSteps(`
type: graph
llm:
  provider: ollama
  model: tiny
  baseURL: ${server.url}
  system: You are terse.
steps:
  - name: first
    type: chat
    messages:
      - role: system
        content: Only for the first step.
      - role: user
        content: one
  - name: second
    type: chat
    depends: first
    messages:
      - role: user
        content: two
  - name: side
    type: chat
    depends: first
    messages:
      - role: user
        content: side
  - name: plain
    depends: second
    command: echo not a chat step
  - name: third
    type: chat
    depends: [second, side, plain]
    messages:
      - role: user
        content: three
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    const third = server.requests.find((q) => q.body.messages.at(-1)?.content === 'three')!;
    expect(third.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'one' }, { role: 'assistant', content: 'You said: one' },
      { role: 'user', content: 'two' }, { role: 'assistant', content: 'You said: two' },
      { role: 'user', content: 'side' }, { role: 'assistant', content: 'You said: side' },
      { role: 'user', content: 'three' },
    ]);
    const first = server.requests.find((q) => q.body.messages.at(-1)?.content === 'one')!;
    expect(first.body.messages[0]).toEqual({ role: 'system', content: 'You are terse.\n\nOnly for the first step.' });
  });

  test('secret values are masked in what is sent and in the logs', async () => {
    const r = await runSteps(`
secrets:
  - name: TOKEN
    provider: env
    key: SVC_TEST_CHAT_TOKEN
steps:
  - name: ask
    type: chat
    llm:
      provider: local
      model: tiny
      baseURL: ${server.url}
    messages:
      - role: user
        content: my token is \${TOKEN}
`, { runners: fast, env: { SVC_TEST_CHAT_TOKEN: 's3cr3t-value' } });
    expect(r.status).toBe('succeeded');
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain('s3cr3t-value');
    expect(server.requests[0]!.body.messages[0]!.content).toBe('my token is *******');
    expect(await r.log('ask')).toBe('You said: my token is *******\n');
  });

  test('a transient failure is retried with a note on stderr; a refused request fails at once with the provider message', async () => {
    const r = await runSteps(`
type: graph
llm:
  provider: local
  baseURL: ${server.url}
  model: flaky
steps:
  - name: flaky
    type: chat
    messages:
      - role: user
        content: hi
  - name: denied
    type: chat
    llm:
      provider: local
      baseURL: ${server.url}
      model: denied
    messages:
      - role: user
        content: hi
`, { runners: fast });
    expect(r.node('flaky').status).toBe(4);
    expect(await r.log('flaky')).toBe('You said: hi\n');
    expect(await r.log('flaky', 'stderr')).toMatch(/status 503, attempt 2 of 3 .*model is loading/);
    expect(r.node('denied').error).toMatch(/^chat step: local \(denied\): 401 .*Invalid API key provided/);
    expect(server.requests.filter((q) => q.body.model === 'denied')).toHaveLength(1);
  });

  test('a reply cut at the token limit succeeds with a note on stderr', async () => {
    const r = await runSteps(`
steps:
  - name: ask
    type: chat
    llm: {provider: local, model: long, baseURL: "${server.url}", maxTokens: 5}
    messages: [{role: user, content: tell me everything}]
`, { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('You said: tell me everything\n');
    expect(await r.log('ask', 'stderr')).toBe('chat step: local (long): the reply stopped at the token limit (llm.maxTokens 5)\n');
  });

  test('the step timeout aborts a reply that never ends; the text so far stays in the log', async () => {
    const r = await runSteps(`
steps:
  - name: ask
    type: chat
    timeoutSec: 1
    llm:
      provider: local
      model: stall
      baseURL: ${server.url}
    messages:
      - role: user
        content: hi
`, { runners: fast });
    expect(r.status).toBe('failed');
    expect(r.node('ask').error).toContain('timed out');
    expect(await r.log('ask')).toBe('thinking about it');
  });

  test('a stop aborts the request at once: the server sees its connection closed', async () => {
    const req = {
      exec: { node: 'ask', attempt: 0 }, step: { name: 'ask', type: 'chat' }, commands: [], shell: [], shellExplicit: false,
      config: { llm: { provider: 'local', model: 'stall', baseURL: server.url, stream: true }, messages: [{ role: 'user', content: 'hi' }] },
      env: {}, workingDir: '.', identity: { dagName: 'd', dagRunId: 'r', attemptId: 'a', node: 'ask', attempt: 0 },
      merged: false, copies: {}, secrets: [], maxOutputSize: 1 << 20, timeoutMs: 0, capture: false,
    } as unknown as ExecRequest;
    let out = '';
    const before = server.stalled.closed;
    const running = startInProcess(fast.chat, req, async (stream, text) => { if (stream === 'stdout') out += text; });
    while (out === '') await new Promise((r) => setTimeout(r, 20));
    running.signal('SIGTERM');
    expect(await running.result).toMatchObject({ exitCode: 1, signal: 'SIGTERM' });
    while (server.stalled.closed === before) await new Promise((r) => setTimeout(r, 20));
    expect(out).toBe('thinking about it');
  });

  test('a missing server is a clear error after the retries', async () => {
    const r = await runSteps(`
steps:
  - name: ask
    type: chat
    llm:
      provider: lmstudio
      model: tiny
      baseURL: http://127.0.0.1:9/v1
    messages:
      - role: user
        content: hi
`, { runners: fast });
    expect(r.status).toBe('failed');
    expect(r.node('ask').error).toMatch(/^chat step: lmstudio \(tiny\): .*after 3 attempts/);
  });
});

describe('a retry of the run', () => {
  test('a chat step re-run alone still inherits the reply of a dependency kept from the first attempt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-chat-retry-'));
    writeFileSync(join(dir, 'retry.yaml'), `
type: graph
llm: {provider: local, baseURL: "${server.url}", model: tiny}
steps:
  - name: first
    type: chat
    messages: [{role: user, content: one}]
    output: FIRST
  - name: second
    type: chat
    depends: first
    llm: {provider: local, baseURL: "${server.url}", model: flaky}
    messages: [{role: user, content: two}]
`);
    const config = loadConfig({ PATH: process.env.PATH, HOME: dir, SVC_DATA_DIR: join(dir, 'data'), SVC_DAGS_DIR: dir });
    const deps = embeddedDeps(config, { info: () => undefined, warn: () => undefined, error: () => undefined });
    const once = makeChatRunner({ retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 } });
    const runs = new RunService({ ...deps, launchers: { ...deps.launchers, ...inProcessLaunchers(deps.logs, { ...STEP_RUNNERS, chat: once }) } });
    const created = await runs.create(await loadDagFile(join(dir, 'retry.yaml')), {});
    const key = { dagName: created.spec.dagName, dagRunId: created.spec.dagRunId };
    expect((await runs.drive(key)).status.run.nodes.map((n) => n.status)).toEqual([4, 2]);
    await runs.retry(key, 'second');
    const again = await runs.drive(key);
    expect(again.status.run.nodes.map((n) => n.status)).toEqual([4, 4]);
    expect(server.requests.at(-1)!.body.messages).toEqual([
      { role: 'user', content: 'one' }, { role: 'assistant', content: 'You said: one' }, { role: 'user', content: 'two' },
    ]);
  });
});

describe('the example', () => {
  test('examples/steps/chat.yaml runs against the local server', async () => {
    const r = await runSteps(readFileSync('examples/steps/chat.yaml', 'utf8'), { params: `BASE_URL=${server.url} TOPIC=rain` });
    expect(r.status).toBe('succeeded');
    expect(await r.log('print')).toBe('You said: Now say it in one line.\n');
    expect(server.requests[1]!.body.messages).toEqual([
      { role: 'system', content: 'You are a concise poet.' },
      { role: 'user', content: 'Write a haiku about rain.' },
      { role: 'assistant', content: 'You said: Write a haiku about rain.' },
      { role: 'user', content: 'Now say it in one line.' },
    ]);
  });
});
