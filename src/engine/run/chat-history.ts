/**
 * The conversation a chat step inherits from the chat steps it depends on (core/chat/history.ts, ADR
 * 0019): their replies are read back from their stdout logs (durable in the log store on both backends,
 * masked already), so nothing is added to the run's status; a dependency kept from an earlier attempt
 * of the run falls back to its captured output.
 */
import { chatAncestors, inheritedHistory } from '../../core/chat/history.js';
import type { DagRunResource } from '../../core/resources.js';
import { NodeStatus } from '../../core/run/status.js';
import type { ChatMessage, StepDefinition } from '../../core/spec/types.js';
import type { EngineDeps } from '../deps.js';
import { execLogOf } from './exec-logs.js';

/** The most of one reply read back into a later step's conversation. */
const MAX_REPLY_BYTES = 16 << 20;

export async function chatHistory(deps: Pick<EngineDeps, 'logs'>, run: DagRunResource, step: StepDefinition, expand: (s: string) => string): Promise<ChatMessage[]> {
  const ancestors = chatAncestors(run.spec.definition, step);
  if (ancestors.length === 0) return [];
  const nodes = new Map(run.status.run.nodes.map((n) => [n.name, n]));
  const replies = new Map<string, string>();
  for (const a of ancestors) {
    const node = nodes.get(a.name);
    if (node?.status !== NodeStatus.Succeeded || node.attempt === 0) continue;
    // A node kept by a retry of the run has its log under the earlier attempt: its captured output, if
    // it has one, is the same reply.
    const text = (await deps.logs.text(execLogOf(run, a, { node: a.name, attempt: node.attempt - 1 }, 'stdout'), MAX_REPLY_BYTES)) ?? node.output;
    if (text !== undefined) replies.set(a.name, text);
  }
  return inheritedHistory(ancestors, (name) => replies.get(name), expand);
}
