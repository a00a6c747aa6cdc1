/** One request to a provider: what every provider client takes. */
import type { ChatToolDef } from '../../../../core/chat/tools.js';
import type { Conversation, ToolCall } from '../messages.js';
import type { ChatSettings } from '../settings.js';

export interface ProviderCall {
  settings: ChatSettings;
  conversation: Conversation;
  signal: AbortSignal;
  /** Each piece of the reply's text as it arrives (the whole text at once when not streaming). */
  onText: (text: string) => void;
  /** The fetch the SDK must use: it records each response's status and Retry-After (errors.ts). */
  fetch: typeof fetch;
  /** The functions offered (none: no tools sent); `toolChoice` none still lists them but forbids calls. */
  tools: ChatToolDef[];
  toolChoice: 'auto' | 'none';
}

/**
 * How a complete reply ended: `truncated` when the model stopped at the token limit; the tools it
 * called, if any, and then `reply`, its message as the provider gave it, to send back before the results.
 */
export interface Finish {
  truncated: boolean;
  toolCalls: ToolCall[];
  reply?: unknown;
}

/** A tool call's arguments: the JSON the model wrote, parsed; kept as text when it is not JSON (the tool says so). */
export function parseArguments(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Sends the conversation and resolves when the reply is complete (its text went to onText). */
export type ProviderClient = (call: ProviderCall) => Promise<Finish>;

/** Long enough for any generation: the step's timeoutSec and stop are what bound a call. */
export const SDK_TIMEOUT_MS = 60 * 60 * 1000;
