/**
 * Chat tool calling (SPEC 2.6 chat, ADR 0021) through the real embedded engine against a real
 * OpenAI-compatible server on loopback (test/helpers/chat-server.ts): DAGs of llm.tools offered as
 * functions, each call a sub-DAG run of the step, results and failures fed back, several calls at once,
 * the maxToolIterations bound, a missing tool DAG, a stop reaching a tool's run, and secrets masked.
 */
import { readFileSync, rmSync } from 'node:fs';
import { runStatusLabel } from '../../src/core/run/status.js';
import { makeChatRunner } from '../../src/runtime/steps/chat/index.js';
import { inProcessLauncher } from '../../src/runtime/steps/in-process.js';
import { MemoryLogStore } from '../../src/adapters/logstore/memory-log-store.js';
import { startChatServer, type ChatServer } from '../helpers/chat-server.js';
import { runSteps } from '../helpers/steps.js';
import { eventually } from '../helpers/wait.js';

const fast = { chat: makeChatRunner({ retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 100, maxRetryAfterMs: 5_000 } }) };

let server: ChatServer;
beforeAll(async () => { server = await startChatServer(); });
afterAll(() => server.close());
beforeEach(() => { server.requests.length = 0; });

/** A DAG with one chat step offering `tools`, whose user message is `say`; `more`: extra YAML documents. */
function dag(model: string, say: string, tools: string[], more = '', llmExtra = ''): string {
  return `
steps:
  - name: ask
    type: chat
    llm:
      provider: local
      model: ${model}
      baseURL: ${server.url}
      tools: [${tools.join(', ')}]${llmExtra}
    messages:
      - role: user
        content: ${JSON.stringify(say)}
    output: ANSWER
${more}`;
}

const WEATHER = `---
name: weather
description: Tells the weather of a city.
params: CITY=Paris UNITS=metric
steps:
  - name: look
    command: echo "sunny in \${CITY} (\${UNITS})"
    output: FORECAST
`;

const BROKEN = `---
name: broken
steps:
  - command: sh -c 'echo no luck >&2; exit 3'
`;

describe('chat tool calling', () => {
  test('a DAG is offered as a function, its call runs as a sub-DAG run, the result goes back, the model answers', async () => {
    const r = await runSteps(dag('tooly', 'call weather {"CITY": "Oslo"}', ['weather'], WEATHER), { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('Got 1 results.\n');
    expect(await r.log('ask', 'stderr')).toBe('chat step: calling tool weather {"CITY":"Oslo"}\nchat step: tool weather succeeded\n');
    expect((await r.outputs()).answer).toBe('Got 1 results.');
    const [first, second] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(first!.body.tools).toEqual([{
      type: 'function',
      function: {
        name: 'weather', description: 'Tells the weather of a city.',
        parameters: {
          type: 'object', required: [], additionalProperties: false,
          properties: { CITY: { type: 'string', description: 'Parameter CITY (default: "Paris")' }, UNITS: { type: 'string', description: 'Parameter UNITS (default: "metric")' } },
        },
      },
    }]);
    expect(first!.body.tool_choice).toBe('auto');
    const [user, reply, result] = second!.body.messages;
    expect(user).toEqual({ role: 'user', content: 'call weather {"CITY": "Oslo"}' });
    expect(reply).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'weather', arguments: '{"CITY": "Oslo"}' } }] });
    expect(result!.role).toBe('tool');
    expect(result!.tool_call_id).toBe('call_0');
    const sub = r.node('ask').subRuns;
    expect(sub).toHaveLength(1);
    expect(sub[0]).toMatchObject({ name: 'weather', params: "CITY='Oslo' UNITS='metric'" });
    expect(JSON.parse(result!.content!)).toEqual({
      name: 'weather', dagRunId: sub[0]!.dagRunId, params: 'CITY=Oslo UNITS=metric',
      outputs: { forecast: 'sunny in Oslo (metric)', FORECAST: 'sunny in Oslo (metric)' }, status: 'succeeded',
    });
    const child = await r.get({ dagName: 'weather', dagRunId: sub[0]!.dagRunId });
    expect(runStatusLabel(child!.status.run.status)).toBe('succeeded');
    expect(child!.spec.parent).toEqual({ name: r.run.spec.dagName, dagRunId: r.run.spec.dagRunId });
  });

  test('several calls in one reply all run; failures and mistakes go back as errors and the step goes on', async () => {
    const say = 'call weather {"CITY": "Rome"}\ncall broken\ncall weather {"TOWN": "Nice"}\ncall nowhere';
    const r = await runSteps(dag('tooly', say, ['weather', 'broken'], WEATHER + BROKEN, '\n      stream: false'), { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('Got 4 results.\n');
    const results = server.requests[1]!.body.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.tool_call_id)).toEqual(['call_0', 'call_1', 'call_2', 'call_3']);
    expect(JSON.parse(results[0]!.content!)).toMatchObject({ outputs: { forecast: 'sunny in Rome (metric)' }, status: 'succeeded' });
    expect(results[1]!.content).toMatch(/^error: sub-DAG run [0-9a-f]{32} ended with status failed\n\{\n {2}"name": "broken"/);
    expect(results[2]!.content).toBe('error: weather has no parameter TOWN: its parameters are CITY, UNITS');
    expect(results[3]!.content).toBe('error: there is no tool named "nowhere"; the tools are weather, broken');
    expect(r.node('ask').subRuns.map((s) => s.name).sort()).toEqual(['broken', 'weather']);
    expect(await r.log('ask', 'stderr')).toContain('chat step: tool broken failed: sub-DAG run ');
  });

  test('maxToolIterations bounds the rounds: the last request forbids calls and the model answers', async () => {
    const r = await runSteps(dag('loopy', 'go', ['weather'], WEATHER, '\n      maxToolIterations: 2'), { runners: fast });
    expect(r.status).toBe('succeeded');
    expect(await r.log('ask')).toBe('I give up.\n');
    expect(server.requests.map((q) => q.body.tool_choice)).toEqual(['auto', 'auto', 'none']);
    expect(r.node('ask').subRuns).toHaveLength(2);
  });

  test('a model that calls tools when told not to fails the step, saying so', async () => {
    const r = await runSteps(dag('stubborn', 'go', ['weather'], WEATHER, '\n      maxToolIterations: 1'), { runners: fast });
    expect(r.status).toBe('failed');
    expect(r.node('ask').error).toBe('chat step: local (stubborn) still called tools after 1 rounds (llm.maxToolIterations)');
  });

  test('a tool DAG that is missing fails the step before anything is sent', async () => {
    const r = await runSteps(dag('tooly', 'call weather', ['weather', 'nope'], WEATHER), { runners: fast });
    expect(r.status).toBe('failed');
    expect(r.node('ask').error).toBe('llm.tools: sub-DAG "nope" not found');
    expect(server.requests).toHaveLength(0);
  });

  test('a DAG file of the DAGs directory is a tool too; dots in its name become _ for the model', async () => {
    const file = 'steps:\n  - command: echo "pong ${1}"\n    output: PONG\nparams: ping\n';
    const r = await runSteps(dag('tooly', 'call net_ping {"1": "x"}', ['net.ping']), { runners: fast, files: { 'net.ping.yaml': file } });
    expect(r.status).toBe('succeeded');
    expect(server.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(['net_ping']);
    expect(JSON.parse(server.requests[1]!.body.messages[2]!.content!)).toMatchObject({ name: 'net.ping', outputs: { pong: 'pong x' } });
  });

  test('where chat steps do not run in the engine (Pods), tools fail the step, saying why, before anything is sent', async () => {
    const inProcess = inProcessLauncher(fast.chat, new MemoryLogStore());
    const podLike = { recordsStarts: inProcess.recordsStarts, begun: inProcess.begun, ensure: inProcess.ensure };
    const r = await runSteps(dag('tooly', 'call weather', ['weather'], WEATHER), { runners: fast, launchers: { chat: podLike } });
    expect(r.status).toBe('failed');
    expect(r.node('ask').error).toBe("chat step: llm.tools (tool calling) runs only where chat steps run in the engine's process (the embedded backend): a step Pod cannot start DAG runs");
    expect(server.requests).toHaveLength(0);
  });

  test("the step's timeout stops the tool's run", async () => {
    const slow = `---
name: slow
steps:
  - command: sleep 30
`;
    const yaml = dag('tooly', 'call slow', ['slow'], slow).replace('    output: ANSWER', '    output: ANSWER\n    timeoutSec: 1');
    const r = await runSteps(yaml, { runners: fast });
    expect(r.status).toBe('failed');
    expect(r.node('ask').error).toMatch(/timed out/);
    const sub = r.node('ask').subRuns[0]!;
    await eventually(async () => {
      const child = await r.get({ dagName: 'slow', dagRunId: sub.dagRunId });
      return child && runStatusLabel(child.status.run.status) === 'aborted';
    }, 'the tool run aborted', 15_000);
    rmSync(r.dir, { recursive: true, force: true });
  });

  test('examples/steps/chat-tools.yaml runs against the local server', async () => {
    const r = await runSteps(readFileSync('examples/steps/chat-tools.yaml', 'utf8'), { params: `BASE_URL=${server.url} MODEL=tooly`, runners: fast });
    expect(r.status).toBe('succeeded');
    expect(r.node('report').subRuns.map((s) => [s.name, runStatusLabel(s.status)]).sort()).toEqual([['disk-space', 'succeeded'], ['load-average', 'succeeded']]);
    const results = server.requests[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content!) as { outputs: Record<string, string> });
    expect(results[0]!.outputs.df).toMatch(/^Filesystem/);
    expect(results[1]!.outputs.load).toMatch(/^[\d.]+ [\d.]+ [\d.]+ on \d+ CPUs$/);
    expect(await r.log('print')).toBe('Got 2 results.\n');
  });

  test("the run's secrets are masked in what a tool gives back to the model", async () => {
    const leak = `---
name: leak
steps:
  - command: echo "token is s3cr3t-value"
    output: SAID
`;
    const yaml = `secrets:\n  - name: TOKEN\n    provider: env\n    key: SVC_TEST_TOKEN\n${dag('tooly', 'call leak', ['leak'], leak)}`;
    const r = await runSteps(yaml, { runners: fast, env: { SVC_TEST_TOKEN: 's3cr3t-value' } });
    expect(r.status).toBe('succeeded');
    const sent = JSON.stringify(server.requests.map((q) => q.body));
    expect(sent).not.toContain('s3cr3t-value');
    expect(sent).toContain('token is *******');
  });
});
