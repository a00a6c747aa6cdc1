/**
 * The conversation a chat step inherits (SPEC 2.6, ADR 0019): the chat steps it depends on, through
 * chains of chat steps, oldest first and each once; of each, its user and assistant messages (system
 * instructions stay with their own step) and then its reply. A dependency without a reply (skipped,
 * failed) adds nothing, but the chain goes on through it. Pure: the replies are given by the caller.
 */
import type { ChatMessage, DagDefinition, StepDefinition } from '../spec/types.js';

/** The chat steps whose conversation `step` continues, ancestors before descendants, each once. */
export function chatAncestors(def: DagDefinition, step: StepDefinition): StepDefinition[] {
  const byName = new Map(def.steps.map((s) => [s.name, s]));
  const out: StepDefinition[] = [];
  const seen = new Set<string>();
  const visit = (s: StepDefinition): void => {
    for (const name of s.depends) {
      const dep = byName.get(name);
      if (!dep || dep.type !== 'chat' || seen.has(name)) continue;
      seen.add(name);
      visit(dep);
      out.push(dep);
    }
  };
  visit(step);
  return out;
}

/**
 * The inherited turns: `reply(name)` is a dependency's reply (undefined when it has none), `expand`
 * expands a message as the step's own messages are (a reply is never expanded: it is the model's text).
 */
export function inheritedHistory(ancestors: StepDefinition[], reply: (name: string) => string | undefined, expand: (s: string) => string): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const s of ancestors) {
    const r = reply(s.name);
    if (r === undefined || r.trim() === '') continue;
    for (const m of s.messages) if (m.role !== 'system') out.push({ role: m.role, content: expand(m.content) });
    out.push({ role: 'assistant', content: r.trim() });
  }
  return out;
}
