/**
 * The `chat` step type (SPEC 2.6): sends the step's conversation (messages.ts) to its provider and
 * prints the reply on the step's stdout as it arrives, so logs and the UI show it live and `output:`
 * captures the whole text. Providers: openai, anthropic, gemini, openrouter and local (with aliases of
 * the usual local runtimes), each through its official SDK, loaded on the first chat step. Transient
 * failures are retried (retry.ts); a stop or the step's timeout aborts the request at once.
 * Tool calling (llm.tools) is not supported yet: such a step fails with a message that says so.
 */
import type { StepRunner } from '../runner.js';
import { StepError } from '../runner.js';
import { failureOf, trackingFetch } from './errors.js';
import { conversation } from './messages.js';
import type { ProviderClient } from './providers/call.js';
import { DEFAULT_RETRY, withRetries, type Failure, type RetrySettings } from './retry.js';
import { chatSettings, type ChatSettings } from './settings.js';

/** A provider's module (and its SDK with it) is loaded by the first step that uses it. */
const CLIENTS: Record<ChatSettings['provider']['api'], () => Promise<ProviderClient>> = {
  openai: async () => (await import('./providers/openai.js')).completeOpenAI,
  anthropic: async () => (await import('./providers/anthropic.js')).completeAnthropic,
  gemini: async () => (await import('./providers/gemini.js')).completeGemini,
};

export interface ChatRunnerOptions {
  retry?: RetrySettings;
}

function describe(f: Failure): string {
  return f.status !== undefined ? `status ${f.status}` : 'connection failed';
}

export function makeChatRunner(o: ChatRunnerOptions = {}): StepRunner {
  const retry = o.retry ?? DEFAULT_RETRY;
  return async ({ req, io, signal }) => {
    const settings = chatSettings(req.config, req.env);
    const conv = conversation(settings.system, req.config, req.secrets);
    const client = await CLIENTS[settings.provider.api]();
    const hidden = [...(settings.apiKey ? [settings.apiKey] : []), ...req.secrets];
    const tracked = trackingFetch();
    const who = `${settings.providerName} (${settings.model})`;
    // What was printed so far: whether any text (no retry after that), any visible text, and its end.
    const printed = { any: false, visible: false, last: '' };
    const onText = (t: string): void => {
      if (t === '') return;
      printed.any = true;
      printed.visible ||= t.trim() !== '';
      printed.last = t;
      io.out(t);
    };
    const finish = await withRetries({
      call: () => {
        tracked.reset();
        return client({ settings, conversation: conv, signal, fetch: tracked.fetch, onText });
      },
      failure: (e) => failureOf(e, tracked, hidden),
      retriable: () => !printed.any,
      // With merged logs stdout and stderr share one log: notes there would end up in the reply's log.
      note: (f, wait, next) => { if (!req.merged) io.err(`chat step: ${who}: ${describe(f)}, attempt ${next} of ${retry.attempts} in ${(wait / 1000).toFixed(1)}s: ${f.message}\n`); },
      fail: (f, attempts) => new StepError(`chat step: ${who}: ${f.message}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}${printed.any ? ' (the reply broke off)' : ''}`),
    }, retry, signal);
    if (!printed.visible) throw new StepError(`chat step: ${who} returned no text`);
    if (!printed.last.endsWith('\n')) io.out('\n');
    if (finish.truncated && !req.merged) io.err(`chat step: ${who}: the reply stopped at the token limit${settings.maxTokens !== undefined ? ` (llm.maxTokens ${settings.maxTokens})` : ''}\n`);
    return { exitCode: 0 };
  };
}

export const runChat: StepRunner = makeChatRunner();
