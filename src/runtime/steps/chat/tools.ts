/**
 * One round of a chat step's tool calls (ADR 0021): every call the model made runs at once, each as a
 * sub-DAG run (the engine's ToolBox); the results come back in the model's order, with the run's
 * secrets masked before they are sent. The step's stderr tells which tool ran and how it ended.
 */
import type { ToolBox } from '../../../core/ports/chat-tools.js';
import { maskSecrets } from '../../../core/vars/mask.js';
import type { StepIO } from '../runner.js';
import type { ToolCall, ToolResult } from './messages.js';

export interface ToolRound {
  io: StepIO;
  signal: AbortSignal;
  secrets: string[];
  /** Merged logs: no notes (they would end up in the reply's log). */
  quiet: boolean;
}

const shown = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args));

export async function runToolCalls(calls: ToolCall[], tools: ToolBox, r: ToolRound): Promise<ToolResult[]> {
  const mask = (s: string): string => maskSecrets(s, r.secrets);
  const note = (s: string): void => { if (!r.quiet) r.io.err(mask(s)); };
  const settled = await Promise.allSettled(calls.map(async (c): Promise<ToolResult> => {
    note(`chat step: calling tool ${c.name} ${shown(c.arguments)}\n`);
    const o = await tools.call(c.name, c.arguments, r.signal);
    note(`chat step: tool ${c.name} ${o.isError ? `failed: ${o.content.split('\n')[0]}` : 'succeeded'}\n`);
    return { id: c.id, name: c.name, content: mask(o.content), isError: o.isError };
  }));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<ToolResult>).value);
}
