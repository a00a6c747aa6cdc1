/**
 * OpenAI's chat completions API, through the `openai` SDK: OpenAI itself, OpenRouter, and `local`
 * (Ollama, llama.cpp, LM Studio, vLLM... all serve this API). The SDK's own retries are off (retry.ts
 * does them) and nothing is read from the engine's environment: the base URL and key are the step's.
 */
import OpenAI from 'openai';
import type { ChatCompletionAssistantMessageParam, ChatCompletionChunk, ChatCompletionCreateParamsBase, ChatCompletionMessageParam, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { Turn, ToolCall } from '../messages.js';
import { parseArguments, SDK_TIMEOUT_MS, type Finish, type ProviderCall } from './call.js';

function messagesOf(turn: Turn): ChatCompletionMessageParam[] {
  if (turn.role === 'reply') return [turn.message as ChatCompletionAssistantMessageParam];
  if (turn.role === 'tool') return turn.results.map((r) => ({ role: 'tool' as const, tool_call_id: r.id, content: r.isError ? `error: ${r.content}` : r.content }));
  return [{ role: turn.role, content: turn.content }];
}

function body(call: ProviderCall): ChatCompletionCreateParamsBase {
  const s = call.settings;
  const { system, turns } = call.conversation;
  const messages: ChatCompletionMessageParam[] = [...(system !== undefined ? [{ role: 'system' as const, content: system }] : []), ...turns.flatMap(messagesOf)];
  const p: ChatCompletionCreateParamsBase = { model: s.model, messages };
  if (call.tools.length > 0) {
    p.tools = call.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: { ...t.parameters } } }));
    p.tool_choice = call.toolChoice;
  }
  if (s.temperature !== undefined) p.temperature = s.temperature;
  if (s.topP !== undefined) p.top_p = s.topP;
  // OpenAI counts reasoning in max_completion_tokens (max_tokens is refused by its reasoning models);
  // OpenRouter and the local runtimes know max_tokens.
  if (s.maxTokens !== undefined) {
    if (s.provider.name === 'openai') p.max_completion_tokens = s.maxTokens;
    else p.max_tokens = s.maxTokens;
  }
  if (s.thinking) {
    const effort = s.thinking.effort ?? 'medium';
    if (s.provider.name === 'openrouter') Object.assign(p, { reasoning: { effort } });
    else p.reasoning_effort = effort;
  }
  return p;
}

/** The reply to send back and the calls it makes, from its text and function calls. */
function finish(text: string, calls: ChatCompletionMessageToolCall[], truncated: boolean): Finish {
  const toolCalls: ToolCall[] = calls.map((c) => ({ id: c.id, name: c.type === 'function' ? c.function.name : '', arguments: c.type === 'function' ? parseArguments(c.function.arguments) : {} }));
  if (toolCalls.length === 0) return { truncated, toolCalls };
  const reply: ChatCompletionAssistantMessageParam = { role: 'assistant', content: text === '' ? null : text, tool_calls: calls };
  return { truncated, toolCalls, reply };
}

export async function completeOpenAI(call: ProviderCall): Promise<Finish> {
  const s = call.settings;
  const client = new OpenAI({
    apiKey: s.apiKey ?? 'unused', baseURL: s.baseURL, organization: null, project: null, webhookSecret: null,
    maxRetries: 0, timeout: SDK_TIMEOUT_MS, fetch: call.fetch, logLevel: 'off',
    // A local runtime without a key gets no Authorization header at all.
    ...(s.apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
  });
  const params = body(call);
  if (!s.stream) {
    const r = await client.chat.completions.create({ ...params, stream: false }, { signal: call.signal });
    const m = r.choices[0]?.message;
    call.onText(m?.content ?? '');
    return finish(m?.content ?? '', m?.tool_calls ?? [], r.choices[0]?.finish_reason === 'length');
  }
  return readStream(await client.chat.completions.create({ ...params, stream: true }, { signal: call.signal }), call.onText);
}

/** A streamed reply: its text to onText as it comes; a function call arrives in pieces by its index (id and name, then its arguments bit by bit). */
async function readStream(stream: AsyncIterable<ChatCompletionChunk>, onText: (t: string) => void): Promise<Finish> {
  let truncated = false;
  let text = '';
  const calls: Array<{ id: string; name: string; args: string }> = [];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    if (choice?.delta?.content) {
      text += choice.delta.content;
      onText(choice.delta.content);
    }
    for (const d of choice?.delta?.tool_calls ?? []) {
      const c = (calls[d.index] ??= { id: '', name: '', args: '' });
      if (d.id) c.id = d.id;
      if (d.function?.name) c.name ||= d.function.name;
      if (d.function?.arguments) c.args += d.function.arguments;
    }
    if (choice?.finish_reason === 'length') truncated = true;
  }
  const made = calls.filter(Boolean).map((c, i): ChatCompletionMessageToolCall => ({ id: c.id || `call_${i}`, type: 'function', function: { name: c.name, arguments: c.args || '{}' } }));
  return finish(text, made, truncated);
}
