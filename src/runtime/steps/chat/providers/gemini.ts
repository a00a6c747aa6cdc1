/**
 * Google's Gemini API, through `@google/genai`. The base URL and API version are always given (the SDK
 * would otherwise read GOOGLE_GEMINI_BASE_URL and friends from the engine's environment), Vertex AI is
 * off, and the SDK does no retries of its own. Thought parts are not part of the reply.
 */
import { FinishReason, GoogleGenAI } from '@google/genai';
import type { GenerateContentConfig, GenerateContentParameters, GenerateContentResponse, ThinkingLevel } from '@google/genai';
import type { Finish, ProviderCall } from './call.js';

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
  return {
    model: s.model,
    contents: turns.map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user', parts: [{ text: t.content }] })),
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
  if (!s.stream) {
    const r = await ai.models.generateContent(p);
    call.onText(textOf(r));
    return { truncated: cut(r) };
  }
  let truncated = false;
  for await (const chunk of await ai.models.generateContentStream(p)) {
    const text = textOf(chunk);
    if (text) call.onText(text);
    if (cut(chunk)) truncated = true;
  }
  return { truncated };
}
