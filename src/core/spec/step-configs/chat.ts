/**
 * Load-time check of chat steps (SPEC 2.2, 2.6): an `llm` block (the step's, or else the DAG's: a
 * step-level block replaces the DAG one wholly, so a step that sets its own must give everything) with
 * a known provider and a model, a base URL that is an http(s) URL, `llm.tools` naming DAGs, and no
 * `config` fields (a chat step is written with `llm` and `messages`). Messages themselves are required by the step parser and shaped
 * by the schema. Values written as `${VAR}` count as given and are checked when the step runs.
 */
import { PROVIDER_NAMES, providerInfo } from '../../chat/providers.js';
import type { ConfigCheck, ConfigProblem } from '../step-configs.js';
import { isValidDagName, MAX_DAG_NAME_LENGTH } from '../names.js';

const CHAT_FIELDS: ReadonlySet<string> = new Set(['llm', 'messages']);

const templated = (v: unknown): boolean => typeof v === 'string' && v.includes('${');
const blank = (v: unknown): boolean => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

function urlProblem(v: unknown): string | undefined {
  if (blank(v) || templated(v)) return undefined;
  let ok = false;
  try {
    const u = new URL(String(v));
    ok = u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    ok = false;
  }
  return ok ? undefined : `"${String(v)}" is not an http or https URL (for example http://localhost:11434/v1)`;
}

export const checkChat: ConfigCheck = (config, step) => {
  const out: ConfigProblem[] = [];
  for (const k of Object.keys(config)) {
    if (!CHAT_FIELDS.has(k)) out.push({ field: `config.${k}`, message: 'is not a chat step field (chat steps are written with llm and messages)' });
  }
  const llm = config.llm as Record<string, unknown> | undefined;
  if (!llm) return [...out, { field: 'llm', message: 'is required for chat steps (a step-level llm block or the DAG-level one)' }];
  const where = step.llm ? 'this step\'s llm block replaces the DAG-level one wholly' : 'in the step\'s llm block or the DAG-level one';
  const provider = llm.provider;
  if (blank(provider)) out.push({ field: 'llm.provider', message: `is required for chat steps (${where}): one of ${PROVIDER_NAMES.join(', ')}` });
  else if (!templated(provider) && !providerInfo(String(provider))) {
    out.push({ field: 'llm.provider', message: `unknown provider "${String(provider)}" (one of ${PROVIDER_NAMES.join(', ')})` });
  }
  if (blank(llm.model)) out.push({ field: 'llm.model', message: `is required for chat steps (${where})` });
  const url = urlProblem(llm.baseURL);
  if (url) out.push({ field: 'llm.baseURL', message: url });
  const tools = Array.isArray(llm.tools) ? llm.tools : [];
  for (const t of tools) {
    if (typeof t === 'string' && !templated(t) && !isValidDagName(t)) out.push({ field: 'llm.tools', message: `"${t}" is not a DAG name (letters, digits, _, . and -, at most ${MAX_DAG_NAME_LENGTH} characters)` });
  }
  return out;
};
