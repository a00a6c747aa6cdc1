/**
 * Anthropic's Messages API, through `@anthropic-ai/sdk`. max_tokens is required there: llm.maxTokens or
 * a default. Thinking is adaptive (the model decides how much), with llm.thinking.effort as
 * output_config.effort; thinking text is not part of the reply.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages';
import { SDK_TIMEOUT_MS, type Finish, type ProviderCall } from './call.js';

/** max_tokens when the step gives none (higher with thinking, whose tokens count in it). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
export const ANTHROPIC_THINKING_MAX_TOKENS = 16_000;

function params(call: ProviderCall): MessageCreateParamsBase {
  const s = call.settings;
  const { system, turns } = call.conversation;
  const p: MessageCreateParamsBase = {
    model: s.model,
    max_tokens: s.maxTokens ?? (s.thinking ? ANTHROPIC_THINKING_MAX_TOKENS : ANTHROPIC_DEFAULT_MAX_TOKENS),
    messages: turns.map((t) => ({ role: t.role, content: t.content })),
  };
  if (system !== undefined) p.system = system;
  // The SDK's types no longer list temperature and top_p (deprecated for newer models): sent as written
  // when the step asks, older models honour them and newer ones say why they refuse.
  if (s.temperature !== undefined) Object.assign(p, { temperature: s.temperature });
  if (s.topP !== undefined) Object.assign(p, { top_p: s.topP });
  if (s.thinking) {
    p.thinking = { type: 'adaptive' };
    if (s.thinking.effort) p.output_config = { effort: s.thinking.effort };
  }
  return p;
}

export async function completeAnthropic(call: ProviderCall): Promise<Finish> {
  const s = call.settings;
  const client = new Anthropic({
    apiKey: s.apiKey ?? null, authToken: null, baseURL: s.baseURL, webhookKey: null,
    maxRetries: 0, timeout: SDK_TIMEOUT_MS, fetch: call.fetch, logLevel: 'off',
  });
  const p = params(call);
  if (!s.stream) {
    const m = await client.messages.create({ ...p, stream: false }, { signal: call.signal });
    call.onText(m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''));
    return { truncated: m.stop_reason === 'max_tokens' };
  }
  const stream = await client.messages.create({ ...p, stream: true }, { signal: call.signal });
  let truncated = false;
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') call.onText(event.delta.text);
    if (event.type === 'message_delta' && event.delta.stop_reason === 'max_tokens') truncated = true;
  }
  return { truncated };
}
