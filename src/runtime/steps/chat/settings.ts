/**
 * What a chat step asks for, read from its expanded config (`llm`, `messages`, and `history`: the
 * conversation inherited from the chat steps it depends on, core/chat/history.ts) and its env (the API
 * key). Every problem is a StepError that names the field or the variable to set.
 */
import { providerInfo, PROVIDER_NAMES, type ProviderInfo } from '../../../core/chat/providers.js';
import { StepError } from '../runner.js';

export type Effort = 'low' | 'medium' | 'high' | 'xhigh';

export interface ChatSettings {
  /** As written (an alias of local is kept for messages). */
  providerName: string;
  provider: ProviderInfo;
  model: string;
  baseURL: string;
  /** Undefined only for local runtimes, which need none. */
  apiKey?: string;
  system?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  stream: boolean;
  /** Present when thinking is on; `effort` when one was asked for. */
  thinking?: { effort?: Effort };
  /** llm.tools: the DAGs offered as functions (the engine gives the runner what runs them). */
  tools: string[];
  /** How many rounds of tool calls the model may make (llm.maxToolIterations, default 10). */
  maxToolIterations: number;
}

export const DEFAULT_MAX_TOOL_ITERATIONS = 10;

const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(llm: Obj, field: string): string | undefined {
  const v = llm[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new StepError(`chat step: llm.${field} must be a string`);
  return v.trim() === '' ? undefined : v;
}

function num(llm: Obj, field: string, min: number, max: number): number | undefined {
  const v = llm[field];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < min || n > max) throw new StepError(`chat step: llm.${field} must be a number from ${min} to ${max}`);
  return n;
}

function thinkingOf(llm: Obj): ChatSettings['thinking'] {
  const t = llm.thinking;
  if (t === undefined || t === null) return undefined;
  if (!isObj(t)) throw new StepError('chat step: llm.thinking must be an object (enabled, effort)');
  if (t.enabled === false) return undefined;
  if (t.effort === undefined || t.effort === null) return {};
  if (!EFFORTS.includes(t.effort as Effort)) throw new StepError(`chat step: llm.thinking.effort must be one of ${EFFORTS.join(', ')}`);
  return { effort: t.effort as Effort };
}

function toolsOf(llm: Obj): Pick<ChatSettings, 'tools' | 'maxToolIterations'> {
  const t = llm.tools ?? [];
  if (!Array.isArray(t) || t.some((n) => typeof n !== 'string')) throw new StepError('chat step: llm.tools must be a list of DAG names');
  const max = num(llm, 'maxToolIterations', 1, Number.MAX_SAFE_INTEGER);
  if (max !== undefined && !Number.isInteger(max)) throw new StepError('chat step: llm.maxToolIterations must be a whole number');
  return { tools: t as string[], maxToolIterations: max ?? DEFAULT_MAX_TOOL_ITERATIONS };
}

/** The API key: llm.apiKey, or the provider's usual variable in the step's env. */
function apiKeyOf(llm: Obj, provider: ProviderInfo, name: string, env: Record<string, string>): string | undefined {
  const given = str(llm, 'apiKey');
  if (given) return given;
  for (const v of provider.keyEnv) if (env[v]?.trim()) return env[v]!.trim();
  if (provider.keyEnv.length === 0) return undefined;
  throw new StepError(`chat step: no API key for ${name}: set ${provider.keyEnv.join(' or ')} in the step's env (env, a secret or dotenv), or llm.apiKey`);
}

export function chatSettings(config: Obj, env: Record<string, string>): ChatSettings {
  const llm = config.llm;
  if (!isObj(llm)) throw new StepError('chat step: llm is required (a step-level llm block or the DAG-level one)');
  const providerName = str(llm, 'provider');
  if (!providerName) throw new StepError(`chat step: llm.provider is required (one of ${PROVIDER_NAMES.join(', ')})`);
  const provider = providerInfo(providerName);
  if (!provider) throw new StepError(`chat step: unknown provider "${providerName}" (one of ${PROVIDER_NAMES.join(', ')})`);
  const model = str(llm, 'model');
  if (!model) throw new StepError('chat step: llm.model is required');
  const baseURL = str(llm, 'baseURL') ?? provider.baseURL;
  try {
    const u = new URL(baseURL);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(u.protocol);
  } catch {
    throw new StepError(`chat step: llm.baseURL "${baseURL}" is not an http or https URL`);
  }
  const apiKey = apiKeyOf(llm, provider, providerName, env);
  const maxTokens = num(llm, 'maxTokens', 1, Number.MAX_SAFE_INTEGER);
  if (maxTokens !== undefined && !Number.isInteger(maxTokens)) throw new StepError('chat step: llm.maxTokens must be a whole number');
  const s: ChatSettings = {
    providerName, provider, model, baseURL, stream: llm.stream !== false, ...toolsOf(llm),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...optional('system', str(llm, 'system')),
    ...optional('temperature', num(llm, 'temperature', 0, 2)),
    ...optional('maxTokens', maxTokens),
    ...optional('topP', num(llm, 'topP', 0, 1)),
  };
  const thinking = thinkingOf(llm);
  return thinking ? { ...s, thinking } : s;
}

function optional<K extends string, V>(k: K, v: V | undefined): Partial<Record<K, V>> {
  return v === undefined ? {} : ({ [k]: v } as Record<K, V>);
}
