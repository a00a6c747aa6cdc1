/**
 * The tools of a chat step (SPEC 2.6 chat, ADR 0021): the DAGs its `llm.tools` names, found as sub-DAG
 * calls find theirs, offered to the model as functions; each call the model makes becomes a sub-DAG
 * run of the step (shown among its sub-runs, held to the call depth limit, stopped with the step) and
 * its result, or why it failed, goes back to the model.
 */
import type { ToolBox, ToolOutcome } from '../../core/ports/chat-tools.js';
import type { ExecRef } from '../../core/run/state.js';
import { isRunSuccess } from '../../core/run/status.js';
import { toolCallParams, toolDefinition, toolNameClash, type ChatToolDef } from '../../core/chat/tools.js';
import { childRunId, createChild, driveChild, findCallee, stopChild, subRunFailure, type Callee, type SubDagEnv } from './subdag.js';

/** The names of `llm.tools` in a chat step's expanded config, deduplicated; empty when it offers none. */
export function toolNames(config: Record<string, unknown>): string[] {
  const tools = (config.llm as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  return [...new Set(tools.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim()))];
}

/** The step's tools, or why it cannot offer them (a DAG missing or invalid, two DAGs under one name). */
export async function chatToolBox(env: SubDagEnv, exec: ExecRef, names: string[]): Promise<ToolBox | { error: string }> {
  const offered: Array<{ def: ChatToolDef; callee: Callee }> = [];
  for (const name of names) {
    const callee = await findCallee(env.deps, env.parent, name);
    if ('error' in callee) return { error: `llm.tools: ${callee.error}` };
    offered.push({ def: toolDefinition(name, callee.definition), callee });
  }
  const tools = offered.map((t) => t.def);
  const clash = toolNameClash(tools);
  if (clash) return { error: clash };
  const found = new Map(offered.map((t) => [t.def.name, t]));
  let calls = 0;
  const call = async (name: string, args: unknown, signal: AbortSignal): Promise<ToolOutcome> => {
    const tool = found.get(name);
    if (!tool) return { isError: true, content: `there is no tool named "${name}"; the tools are ${tools.map((t) => t.name).join(', ')}` };
    const p = toolCallParams(tool.def, tool.callee.definition, args);
    if ('error' in p) return { isError: true, content: p.error };
    const child = await createChild(env, tool.callee, childRunId(env.parent, exec, `tool/${++calls}`), p.params);
    const stop = (): void => stopChild(env.deps, child);
    signal.addEventListener('abort', stop, { once: true });
    try {
      const { done, output } = await driveChild(env, exec, child);
      const status = done.status.run.status;
      return isRunSuccess(status) ? { isError: false, content: output } : { isError: true, content: `${subRunFailure(child.spec.dagRunId, status)}\n${output}` };
    } finally {
      signal.removeEventListener('abort', stop);
    }
  };
  return { tools, call };
}
