/** One request to a provider: what every provider client takes. */
import type { Conversation } from '../messages.js';
import type { ChatSettings } from '../settings.js';

export interface ProviderCall {
  settings: ChatSettings;
  conversation: Conversation;
  signal: AbortSignal;
  /** Each piece of the reply's text as it arrives (the whole text at once when not streaming). */
  onText: (text: string) => void;
  /** The fetch the SDK must use: it records each response's status and Retry-After (errors.ts). */
  fetch: typeof fetch;
}

/** How a complete reply ended: `truncated` when the model stopped at the token limit. */
export interface Finish {
  truncated: boolean;
}

/** Sends the conversation and resolves when the reply is complete (its text went to onText). */
export type ProviderClient = (call: ProviderCall) => Promise<Finish>;

/** Long enough for any generation: the step's timeoutSec and stop are what bound a call. */
export const SDK_TIMEOUT_MS = 60 * 60 * 1000;
