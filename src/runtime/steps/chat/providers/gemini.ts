/**
 * Google's Gemini API, through `@google/genai`. The base URL and API version are always given (the SDK
 * would otherwise read GOOGLE_GEMINI_BASE_URL and friends from the engine's environment), Vertex AI is
 * off, and the SDK does no retries of its own. Thought parts are not part of the reply.
 */
import { FinishReason, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import type { Content, GenerateContentConfig, GenerateContentParameters, GenerateContentResponse, Part, ThinkingLevel } from '@google/genai';
import type { ToolCall, Turn } from '../messages.js';
import type { Finish, ProviderCall } from './call.js';

/** Gemini may leave a function call without an id: svc numbers it, and answers it by name alone. */
const MADE_ID = 'svc-call-';

function contentOf(turn: Turn): Content {
  if (turn.role === 'reply') return turn.message as Content;
  if (turn.role === 'tool') {
    return {
      role: 'user',
      parts: turn.results.map((r) => ({
        functionResponse: { ...(r.id.startsWith(MADE_ID) ? {} : { id: r.id }), name: r.name, response: r.isError ? { error: r.content } : { output: r.content } },
      })),
    };
  }
  return { role: turn.role === 'assistant' ? 'model' : 'user', parts: [{ text: turn.content }] };
}

/** The reply (every part of it, thought signatures included, goes back as it came) and its calls. */
function finish(parts: Part[], truncated: boolean): Finish {
  const toolCalls: ToolCall[] = parts.flatMap((p, i) => (p.functionCall ? [{ id: p.functionCall.id ?? `${MADE_ID}${i}`, name: p.functionCall.name ?? '', arguments: p.functionCall.args ?? {} }] : []));
  return toolCalls.length === 0 ? { truncated, toolCalls } : { truncated, toolCalls, reply: { role: 'model', parts } satisfies Content };
}

function params(call: ProviderCall): GenerateContentParameters {
  const s = call.settings;
  const { system, turns } = call.conversation;
  const config: GenerateContentConfig = { abortSignal: call.signal };
  if (system !== undefined) config.systemInstruction = system;
  if (s.temperature !== undefined) config.temperature = s.temperature;
  if (s.topP !== undefined) config.topP = s.topP;
  if (s.maxTokens !== undefined) config.maxOutputTokens = s.maxTokens;
  if (s.thinking) {
    // -1: the model decides how much to think; a level when an effort was asked for.
    config.thinkingConfig = s.thinking.effort ? { thinkingLevel: s.thinking.effort.toUpperCase() as ThinkingLevel } : { thinkingBudget: -1 };
  }
  if (call.tools.length > 0) {
    config.tools = [{ functionDeclarations: call.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
    config.toolConfig = { functionCallingConfig: { mode: call.toolChoice === 'none' ? FunctionCallingConfigMode.NONE : FunctionCallingConfigMode.AUTO } };
  }
  return {
    model: s.model,
    contents: turns.map(contentOf),
    config,
  };
}

/** The text parts of a response, thoughts left out. */
function textOf(r: GenerateContentResponse): string {
  return (r.candidates?.[0]?.content?.parts ?? []).map((p) => (p.text !== undefined && !p.thought ? p.text : '')).join('');
}

export async function completeGemini(call: ProviderCall): Promise<Finish> {
  const s = call.settings;
  const ai = new GoogleGenAI({
    apiKey: s.apiKey, vertexai: false, apiVersion: 'v1beta',
    httpOptions: { baseUrl: s.baseURL, fetch: call.fetch },
  });
  const p = params(call);
  const cut = (r: GenerateContentResponse): boolean => r.candidates?.[0]?.finishReason === FinishReason.MAX_TOKENS;
  const partsOf = (r: GenerateContentResponse): Part[] => r.candidates?.[0]?.content?.parts ?? [];
  if (!s.stream) {
    const r = await ai.models.generateContent(p);
    call.onText(textOf(r));
    return finish(partsOf(r), cut(r));
  }
  let truncated = false;
  const parts: Part[] = [];
  for await (const chunk of await ai.models.generateContentStream(p)) {
    const text = textOf(chunk);
    if (text) call.onText(text);
    parts.push(...partsOf(chunk));
    if (cut(chunk)) truncated = true;
  }
  return finish(parts, truncated);
}
