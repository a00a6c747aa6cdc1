/**
 * Anthropic's Messages API, through `@anthropic-ai/sdk`. max_tokens is required there: llm.maxTokens or
 * a default. Thinking is adaptive (the model decides how much), with llm.thinking.effort as
 * output_config.effort; thinking text is not part of the reply.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsBase, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { Turn } from '../messages.js';
import { SDK_TIMEOUT_MS, type Finish, type ProviderCall } from './call.js';

/** max_tokens when the step gives none (higher with thinking, whose tokens count in it). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
export const ANTHROPIC_THINKING_MAX_TOKENS = 16_000;

function messageOf(turn: Turn): MessageParam {
  if (turn.role === 'reply') return turn.message as MessageParam;
  if (turn.role === 'tool') {
    return { role: 'user', content: turn.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.content, is_error: r.isError })) };
  }
  return { role: turn.role, content: turn.content };
}

/** The reply and the calls it makes: its content goes back whole (thinking blocks with their signatures too). */
function finish(m: Message): Finish {
  const toolCalls = m.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: b.input }] : []));
  const truncated = m.stop_reason === 'max_tokens';
  return toolCalls.length === 0 ? { truncated, toolCalls } : { truncated, toolCalls, reply: { role: 'assistant', content: m.content } };
}

function params(call: ProviderCall): MessageCreateParamsBase {
  const s = call.settings;
  const { system, turns } = call.conversation;
  const p: MessageCreateParamsBase = {
    model: s.model,
    max_tokens: s.maxTokens ?? (s.thinking ? ANTHROPIC_THINKING_MAX_TOKENS : ANTHROPIC_DEFAULT_MAX_TOKENS),
    messages: turns.map(messageOf),
  };
  if (call.tools.length > 0) {
    p.tools = call.tools.map((t) => ({ name: t.name, description: t.description, input_schema: { ...t.parameters } }));
    p.tool_choice = { type: call.toolChoice };
  }
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
    return finish(m);
  }
  // The SDK's stream helper puts the reply together (text, thinking and tool-use blocks) as it arrives.
  const stream = client.messages.stream(p, { signal: call.signal });
  stream.on('text', (t) => call.onText(t));
  return finish(await stream.finalMessage());
}
