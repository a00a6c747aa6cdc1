/**
 * The conversation a chat step sends: its system prompt (llm.system, then the step's own system-role
 * messages), then the turns inherited from the chat steps it depends on (config.history), then its own
 * user and assistant messages. The run's secret values are masked in every piece before anything is
 * sent (SPEC 2.4).
 */
import { maskSecrets } from '../../../core/vars/mask.js';
import { StepError } from '../runner.js';

/** A message of the step's own or inherited conversation. */
export interface TextTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** A call the model made to one of the step's tools; `arguments` as parsed from its JSON (a string when it was not JSON). */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/** The answer to one tool call, as the model reads it. */
export interface ToolResult {
  id: string;
  name: string;
  content: string;
  isError: boolean;
}

/**
 * The conversation grows with tool calling: the model's reply that asked for tools is sent back as the
 * provider gave it (`reply`: its own message shape, with what a provider needs back, such as thinking
 * signatures), followed by the results of the calls.
 */
export type Turn = TextTurn | { role: 'reply'; message: unknown } | { role: 'tool'; results: ToolResult[] };

export interface Conversation {
  system?: string;
  turns: Turn[];
}

interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

function messagesOf(v: unknown, field: string): Message[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new StepError(`chat step: ${field} must be a list of messages`);
  return v.map((m, i) => {
    const role = (m as { role?: unknown } | null)?.role;
    const content = (m as { content?: unknown } | null)?.content;
    if (role !== 'system' && role !== 'user' && role !== 'assistant') throw new StepError(`chat step: ${field}[${i}].role must be system, user or assistant`);
    if (typeof content !== 'string') throw new StepError(`chat step: ${field}[${i}].content must be a string`);
    return { role, content };
  });
}

export function conversation(system: string | undefined, config: Record<string, unknown>, secrets: string[]): Conversation {
  const own = messagesOf(config.messages, 'messages');
  const history = messagesOf(config.history, 'history').filter((m) => m.role !== 'system');
  const mask = (s: string): string => maskSecrets(s, secrets);
  const systems = [system, ...own.filter((m) => m.role === 'system').map((m) => m.content)].filter((s): s is string => !!s && s.trim() !== '');
  const turns = [...history, ...own.filter((m) => m.role !== 'system')]
    .filter((m) => m.content.trim() !== '')
    .map((m): Turn => ({ role: m.role as TextTurn['role'], content: mask(m.content) }));
  if (!turns.some((t) => t.role === 'user')) throw new StepError('chat step: messages must hold at least one user message with text');
  return { ...(systems.length > 0 ? { system: mask(systems.join('\n\n')) } : {}), turns };
}
