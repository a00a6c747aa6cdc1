/**
 * The `chat` step type (SPEC 2.6): sends the step's conversation (messages.ts) to its provider and
 * prints the reply on the step's stdout as it arrives, so logs and the UI show it live and `output:`
 * captures the whole text. Providers: openai, anthropic, gemini, openrouter and local (with aliases of
 * the usual local runtimes), each through its official SDK, loaded on the first chat step. Transient
 * failures are retried (retry.ts); a stop or the step's timeout aborts the request at once.
 * Tool calling (llm.tools, ADR 0021): the model may call the step's tools, DAGs the engine runs as
 * sub-DAG runs (tools.ts); their results go back to it, for at most llm.maxToolIterations rounds.
 */
import type { ToolBox } from '../../../core/ports/chat-tools.js';
import type { StepIO, StepRunner } from '../runner.js';
import { StepError } from '../runner.js';
import { failureOf, trackingFetch } from './errors.js';
import { conversation, type Conversation } from './messages.js';
import type { Finish, ProviderClient } from './providers/call.js';
import { DEFAULT_RETRY, withRetries, type Failure, type RetrySettings } from './retry.js';
import { chatSettings, type ChatSettings } from './settings.js';
import { runToolCalls } from './tools.js';

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

/** What the step printed so far: any visible text, and the end of the last piece (for the closing newline). */
interface Printed {
  visible: boolean;
  last: string;
}

interface Asking {
  settings: ChatSettings;
  conversation: Conversation;
  client: ProviderClient;
  io: StepIO;
  signal: AbortSignal;
  hidden: string[];
  merged: boolean;
  retry: RetrySettings;
  printed: Printed;
}

/** One request to the model, retried while nothing of its reply was printed; its text goes to stdout. */
async function ask(a: Asking, tools: ToolBox | undefined, toolChoice: 'auto' | 'none'): Promise<Finish> {
  const { settings, io, retry, printed } = a;
  const tracked = trackingFetch();
  const who = `${settings.providerName} (${settings.model})`;
  let any = false;
  const onText = (t: string): void => {
    if (t === '') return;
    any = true;
    printed.visible ||= t.trim() !== '';
    printed.last = t;
    io.out(t);
  };
  return withRetries({
    call: () => {
      tracked.reset();
      return a.client({ settings, conversation: a.conversation, signal: a.signal, fetch: tracked.fetch, onText, tools: tools?.tools ?? [], toolChoice });
    },
    failure: (e) => failureOf(e, tracked, a.hidden),
    retriable: () => !any,
    // With merged logs stdout and stderr share one log: notes there would end up in the reply's log.
    note: (f, wait, next) => { if (!a.merged) io.err(`chat step: ${who}: ${describe(f)}, attempt ${next} of ${retry.attempts} in ${(wait / 1000).toFixed(1)}s: ${f.message}\n`); },
    fail: (f, attempts) => new StepError(`chat step: ${who}: ${f.message}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}${any ? ' (the reply broke off)' : ''}`),
  }, retry, a.signal);
}

export function makeChatRunner(o: ChatRunnerOptions = {}): StepRunner {
  const retry = o.retry ?? DEFAULT_RETRY;
  return async ({ req, io, signal, tools }) => {
    const settings = chatSettings(req.config, req.env);
    if (settings.tools.length > 0 && !tools) throw new StepError('chat step: llm.tools (tool calling) runs only where chat steps run in the engine\'s process (the embedded backend)');
    const conv = conversation(settings.system, req.config, req.secrets);
    const client = await CLIENTS[settings.provider.api]();
    const hidden = [...(settings.apiKey ? [settings.apiKey] : []), ...req.secrets];
    const who = `${settings.providerName} (${settings.model})`;
    const a: Asking = { settings, conversation: conv, client, io, signal, hidden, merged: req.merged, retry, printed: { visible: false, last: '' } };
    let finish = await ask(a, tools, 'auto');
    // Each round: the model's calls run, their results go back, the model answers; the round after the
    // last one allowed still lists the tools (the conversation refers to them) but forbids calls.
    for (let round = 1; finish.toolCalls.length > 0; round++) {
      if (round > settings.maxToolIterations || !tools) throw new StepError(`chat step: ${who} still called tools after ${settings.maxToolIterations} rounds (llm.maxToolIterations)`);
      if (a.printed.last !== '' && !a.printed.last.endsWith('\n')) {
        a.printed.last = '\n';
        io.out('\n');
      }
      const results = await runToolCalls(finish.toolCalls, tools, { io, signal, secrets: req.secrets, quiet: req.merged });
      conv.turns.push({ role: 'reply', message: finish.reply }, { role: 'tool', results });
      finish = await ask(a, tools, round < settings.maxToolIterations ? 'auto' : 'none');
    }
    if (!a.printed.visible) throw new StepError(`chat step: ${who} returned no text`);
    if (!a.printed.last.endsWith('\n')) io.out('\n');
    if (finish.truncated && !req.merged) io.err(`chat step: ${who}: the reply stopped at the token limit${settings.maxTokens !== undefined ? ` (llm.maxTokens ${settings.maxTokens})` : ''}\n`);
    return { exitCode: 0 };
  };
}

export const runChat: StepRunner = makeChatRunner();
