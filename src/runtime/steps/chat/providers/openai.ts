/**
 * OpenAI's chat completions API, through the `openai` SDK: OpenAI itself, OpenRouter, and `local`
 * (Ollama, llama.cpp, LM Studio, vLLM... all serve this API). The SDK's own retries are off (retry.ts
 * does them) and nothing is read from the engine's environment: the base URL and key are the step's.
 */
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { SDK_TIMEOUT_MS, type Finish, type ProviderCall } from './call.js';

function body(call: ProviderCall): ChatCompletionCreateParamsBase {
  const s = call.settings;
  const { system, turns } = call.conversation;
  const messages: ChatCompletionMessageParam[] = [...(system !== undefined ? [{ role: 'system' as const, content: system }] : []), ...turns];
  const p: ChatCompletionCreateParamsBase = { model: s.model, messages };
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
    call.onText(r.choices[0]?.message?.content ?? '');
    return { truncated: r.choices[0]?.finish_reason === 'length' };
  }
  const stream = await client.chat.completions.create({ ...params, stream: true }, { signal: call.signal });
  let truncated = false;
  for await (const chunk of stream) {
    const text = chunk.choices[0]?.delta?.content;
    if (text) call.onText(text);
    if (chunk.choices[0]?.finish_reason === 'length') truncated = true;
  }
  return { truncated };
}
