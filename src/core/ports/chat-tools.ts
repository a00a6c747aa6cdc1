/**
 * What a chat step's tool calls reach (SPEC 2.6 chat, ADR 0021): the DAGs of its `llm.tools`, offered
 * as functions, each call run as a sub-DAG run of the step by the engine (engine/run/chat-tools.ts).
 * Given only to launchers that run the step in the engine's process (Launcher.runsTools).
 */
import type { ChatToolDef } from '../chat/tools.js';

/** What goes back to the model: the sub-DAG run's result, or why the call failed (`isError`). */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

export interface ToolBox {
  readonly tools: ChatToolDef[];
  /**
   * Runs the tool `name` (a function name of `tools`) with the model's arguments, to the end of its run;
   * an abort stops that run. A mistake of the model's (unknown tool, bad arguments) and a failed run are
   * outcomes with isError; only a failure of svc's own rejects.
   */
  call(name: string, args: unknown, signal: AbortSignal): Promise<ToolOutcome>;
}
