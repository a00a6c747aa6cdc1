/**
 * The providers a chat step can name (SPEC 2.6): hosted APIs, an aggregator, and `local` (any server
 * speaking OpenAI's chat completions API) with aliases for the common local runtimes, each an alias of
 * `local` with the base URL that runtime serves by default. Pure data: the load-time check and the
 * runner read the same table.
 */

export type ApiKind = 'openai' | 'anthropic' | 'gemini';

export interface ProviderInfo {
  /** The canonical provider (an alias resolves to `local`). */
  name: 'openai' | 'anthropic' | 'gemini' | 'openrouter' | 'local';
  /** Which wire API (and SDK) the requests use. */
  api: ApiKind;
  baseURL: string;
  /** Environment variables that may hold the API key, in order; none for local runtimes (a key is optional). */
  keyEnv: readonly string[];
}

const HOSTED: Record<string, ProviderInfo> = {
  openai: { name: 'openai', api: 'openai', baseURL: 'https://api.openai.com/v1', keyEnv: ['OPENAI_API_KEY'] },
  anthropic: { name: 'anthropic', api: 'anthropic', baseURL: 'https://api.anthropic.com', keyEnv: ['ANTHROPIC_API_KEY'] },
  gemini: { name: 'gemini', api: 'gemini', baseURL: 'https://generativelanguage.googleapis.com', keyEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
  openrouter: { name: 'openrouter', api: 'openai', baseURL: 'https://openrouter.ai/api/v1', keyEnv: ['OPENROUTER_API_KEY'] },
};

/**
 * `local` and its aliases: the OpenAI-compatible endpoint each runtime listens on out of the box.
 * `local` itself defaults to Ollama's, the most common; `baseURL` overrides any of them.
 */
export const LOCAL_BASE_URLS: Readonly<Record<string, string>> = {
  local: 'http://localhost:11434/v1',
  ollama: 'http://localhost:11434/v1',
  llamacpp: 'http://localhost:8080/v1',
  'llama.cpp': 'http://localhost:8080/v1',
  llama: 'http://localhost:8080/v1',
  llamafile: 'http://localhost:8080/v1',
  lmstudio: 'http://localhost:1234/v1',
  vllm: 'http://localhost:8000/v1',
  localai: 'http://localhost:8080/v1',
};

/** Every name a chat step may give as `llm.provider`. */
export const PROVIDER_NAMES: readonly string[] = [...Object.keys(HOSTED), ...Object.keys(LOCAL_BASE_URLS)];

/** The provider a name stands for (case-insensitive), or undefined when it is not one. */
export function providerInfo(name: string): ProviderInfo | undefined {
  const key = name.trim().toLowerCase();
  const hosted = HOSTED[key];
  if (hosted) return hosted;
  const local = LOCAL_BASE_URLS[key];
  return local ? { name: 'local', api: 'openai', baseURL: local, keyEnv: [] } : undefined;
}
