/**
 * Chat tool calling (SPEC 2.6 chat, ADR 0021): each DAG named in `llm.tools` is offered to the model as
 * a function whose name is the DAG's name, whose description is the DAG's description and whose
 * parameters are the DAG's params (named ones by name, positional ones as "1", "2", ... as `$1` reads
 * them), every one a string with its default. A call's arguments become the sub-DAG run's params.
 * Pure: the engine resolves the DAGs and runs them (engine/run/chat-tools.ts).
 */
import type { DagDefinition, ParamDef } from '../spec/types.js';
import { paramString, type ParamToken } from '../vars/params.js';

/** A JSON Schema object of string parameters, as every provider takes it. */
export interface ToolParameters {
  type: 'object';
  properties: Record<string, { type: 'string'; description: string }>;
  required: string[];
  additionalProperties: false;
}

export interface ChatToolDef {
  /** The function name the model sees: the DAG's name (a `.`, refused by some providers, as `_`). */
  name: string;
  dagName: string;
  description: string;
  parameters: ToolParameters;
}

/** The function name of a DAG: providers take letters, digits, `_` and `-` (OpenAI and Anthropic refuse `.`). */
export const toolName = (dagName: string): string => dagName.replace(/\./g, '_');

/** A parameter's name as the model sees it: its own, or its place among the positional ones. */
function paramNames(params: ParamDef[]): string[] {
  let k = 0;
  return params.map((p) => p.name ?? String(++k));
}

export function toolDefinition(dagName: string, def: DagDefinition): ChatToolDef {
  const names = paramNames(def.params);
  const properties = Object.fromEntries(def.params.map((p, i) => {
    const what = p.name === undefined ? `Positional parameter ${names[i]}` : `Parameter ${p.name}`;
    return [names[i]!, { type: 'string' as const, description: p.default === '' ? what : `${what} (default: ${JSON.stringify(p.default)})` }];
  }));
  const description = def.description?.trim() || `Runs the workflow "${dagName}" and returns its outputs and status.`;
  return { name: toolName(dagName), dagName, description, parameters: { type: 'object', properties, required: [], additionalProperties: false } };
}

/** Two DAGs whose function names are the same (`a.b` and `a_b`): a problem naming both, else undefined. */
export function toolNameClash(defs: ChatToolDef[]): string | undefined {
  const seen = new Map<string, string>();
  for (const d of defs) {
    const other = seen.get(d.name);
    if (other !== undefined && other !== d.dagName) return `llm.tools: "${other}" and "${d.dagName}" would both be offered as the function "${d.name}"`;
    seen.set(d.name, d.dagName);
  }
  return undefined;
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The params string of the sub-DAG run a call starts: its arguments over the DAG's defaults, positional
 * ones in their places. A problem the model can fix (arguments that are not an object, an unknown
 * parameter) is returned as `error`, to be passed back to it.
 */
export function toolCallParams(tool: ChatToolDef, def: DagDefinition, args: unknown): { params: string } | { error: string } {
  if (args === undefined || args === null || args === '') args = {};
  if (typeof args !== 'object' || Array.isArray(args)) return { error: `the arguments of ${tool.name} must be a JSON object` };
  const names = paramNames(def.params);
  const given = args as Record<string, unknown>;
  const unknown = Object.keys(given).filter((k) => !names.includes(k));
  if (unknown.length > 0) {
    const known = names.length > 0 ? `its parameters are ${names.join(', ')}` : 'it takes no parameters';
    return { error: `${tool.name} has no parameter ${unknown.join(', ')}: ${known}` };
  }
  const tokens: ParamToken[] = def.params.map((p, i) => {
    const v = given[names[i]!];
    const value = v === undefined || v === null ? p.default : asText(v);
    return p.name === undefined ? { value } : { name: p.name, value };
  });
  return { params: paramString(tokens) };
}
