/**
 * A text that may hold secret values, as references to them (ADR 0028): the parts of the text, each a
 * literal string or `{ref: NAME}` naming a variable that holds a value in a form svc writes it. The request
 * of a DAG-level container's agent is written this way (the values reach its Pod through a Secret), so the
 * data volume holds no value. Structure, not an in-band syntax: no user text can pass for a reference.
 */
import { carriesSecret, secretForms } from './secret-values.js';

export type TextPart = string | { ref: string };
/** A text without a secret stays a string. */
export type RequestText = string | TextPart[];

/** Every form (svc-escaped too) of the non-empty values, each once, longest first. */
export function referencedForms(secrets: readonly string[]): string[] {
  const forms = [...new Set(secrets.filter((s) => s !== '').flatMap(secretForms))];
  return forms.sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/** The next occurrence of any form from `from`: the earliest, the longest of those starting there. */
function nextForm(text: string, from: number, forms: readonly string[]): { at: number; form: string } | undefined {
  let best: { at: number; form: string } | undefined;
  for (const form of forms) {
    const at = text.indexOf(form, from);
    if (at >= 0 && (!best || at < best.at || (at === best.at && form.length > best.form.length))) best = { at, form };
  }
  return best;
}

/**
 * `text` with each form of a secret replaced by its reference (`refs`: form → name). Throws when a secret
 * is left in a literal part (a form with no reference, a value nested deeper in JSON than svc writes it):
 * the text would hold it in the clear.
 */
export function referenceParts(text: string, refs: ReadonlyMap<string, string>, secrets: readonly string[]): RequestText {
  if (!carriesSecret(text, secrets)) return text;
  const forms = [...refs.keys()].filter((f) => f !== '').sort((a, b) => b.length - a.length);
  const parts: TextPart[] = [];
  let pos = 0;
  for (let hit = nextForm(text, 0, forms); hit; hit = nextForm(text, pos, forms)) {
    if (hit.at > pos) parts.push(text.slice(pos, hit.at));
    parts.push({ ref: refs.get(hit.form)! });
    pos = hit.at + hit.form.length;
  }
  if (pos < text.length) parts.push(text.slice(pos));
  if (parts.some((p) => typeof p === 'string' && carriesSecret(p, secrets))) {
    throw new Error('a secret value in the step\'s request has no reference in the run\'s container (it was started without it, or the value is nested in a form svc does not write)');
  }
  return parts;
}
