/**
 * Texts being edited and not saved, by what they edit (`spec:hello`), for as long as the page is open:
 * leaving an editor by Back, or by anything the leave guard does not ask about, and coming back finds the
 * text as it was left. A save, or leaving on purpose, forgets it.
 */
const drafts = new Map<string, string>();

export function draftOf(key: string): string | undefined {
  return drafts.get(key);
}

/** Keeps `text` unless it is the saved one (then there is nothing to keep). */
export function keepDraft(key: string, text: string, saved: string): void {
  if (text === saved) drafts.delete(key);
  else drafts.set(key, text);
}

export function forgetDraft(key: string): void {
  drafts.delete(key);
}
